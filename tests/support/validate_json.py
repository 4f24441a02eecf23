#!/usr/bin/python3
"""Validates JSON documents against a JSON Schema (draft 2020-12).

Usage: validate_json.py SCHEMA [DOCUMENT...]   (no DOCUMENT: read one from stdin)
Exit 0 when every document is valid; 1 with the errors on stderr otherwise.
"""
import json
import sys

import jsonschema


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    docs = [(p, open(p, encoding="utf-8").read()) for p in argv[2:]] or [("<stdin>", sys.stdin.read())]
    failed = False
    for name, text in docs:
        for error in validator.iter_errors(json.loads(text)):
            failed = True
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{name}: {where}: {error.message}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
