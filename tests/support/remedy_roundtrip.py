#!/usr/bin/env python3
"""Every command the tool prints for a person, given to a real bash: each name in it must come
back as exactly the bytes of the path or name it stands for, and nothing else may run.

Usage: remedy_roundtrip.py TOOL SOURCE_DIR

Builds a scratch temp dir whose own path and whose namespaces' names hold every byte 0x01-0xff
but '/' and the classic attacks (quotes, $(...), backticks, backslashes, newlines, a leading
'-', globs, invalid UTF-8, invisible Unicode controls), then audits it (JSON, text, --quiet),
plans a reap and a repair of it, and a foreign root whose etc/passwd names hostile users. Each
command in backquotes of a remedy (and each `next` line, `or run:` line and reap remedy) is run
by bash -c with its programs replaced by a function that prints its argv; the argv must be the
catalogue's words with each placeholder replaced by the raw bytes, and the empty working
directory must stay empty. Prints one line per kind of output checked; exits 1 on any mismatch.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOL, SOURCE = sys.argv[1], sys.argv[2]
VERBS = ["setpriv", "chmod", "chown", "unlink", "setfacl", "chattr", "findmnt", "find", "hsperfguard", "rm",
         "icacls", "compact", "jcmd", "ps", "nsenter", "systemctl", "getfacl", "ls"]
failures = []
checked = {"commands": 0}


def fail(message):
    failures.append(message)
    if len(failures) <= 20:
        print("FAIL: " + message)


def b(text):
    """The raw bytes of a str that came from JSON (the tool escapes non-UTF-8 bytes as \\xNN
    and the backslash as \\\\ when a name is not UTF-8; path_hex holds the exact bytes)."""
    return os.fsencode(text)


def catalogue():
    rules = {}
    for path in glob.glob(os.path.join(SOURCE, "rules", "*.json")):
        with open(path, encoding="utf-8") as f:
            for rule in json.load(f):
                rules[rule["id"]] = rule["remediation"]
    return rules


RULES = catalogue()


def run_in_bash(command, cwd):
    """argv of each program `command` (bytes) runs, with every program stubbed out: each stub
    writes "CALL <argc>" and then its arguments, each ended by NUL (no argument holds a NUL)."""
    stubs = "".join(
        "%s() { printf 'CALL %%d\\0' $(($# + 1)); printf '%%s\\0' %s \"$@\"; }\n" % (v, v) for v in VERBS)
    stubs += "command_not_found_handle() { printf 'CALL 2\\0NOT-FOUND\\0%s\\0' \"$1\"; }\n"
    script = stubs.encode() + command + b"\n"
    done = subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, check=False)
    tokens = done.stdout.split(b"\x00")
    calls = []
    i = 0
    while i < len(tokens) and tokens[i].startswith(b"CALL "):
        n = int(tokens[i][5:])
        calls.append(tokens[i + 1:i + 1 + n])
        i += 1 + n
    if i < len(tokens) - 1 or (tokens and tokens[-1]):
        calls.append([b"UNPARSED"] + tokens[i:])
    return calls, done.returncode, done.stderr


def commands_in(text):
    """The commands in backquotes of a remedy (a str), as printed."""
    return re.findall(r"`([^`]*)`", text)


def expected_calls(template_command, values):
    """The argv lists a catalogue command (`chmod go-w /tmp/hsperfdata_<user>`) stands for,
    with its placeholders replaced by `values` (bytes)."""
    calls = [[]]
    words = template_command.split()
    i = 0
    while i < len(words):
        word = words[i]
        if word == "&&":
            calls.append([])
        elif word == "--user" and i + 1 < len(words) and words[i + 1] == "<user>" and "user" in values:
            user = values["user"]
            calls[-1] += [b"--user=" + user] if user.startswith(b"-") else [b"--user", user]
            i += 1
        else:
            out = word.encode()
            for placeholder, key in (("/tmp/hsperfdata_<user>", "namespace"), ("<namespace>", "namespace"),
                                     ("<path>", "path"), ("<file>", "path"), ("<user>", "user")):
                if placeholder in word and key in values:
                    out = out.replace(placeholder.encode(), values[key])
            calls[-1].append(out)
        i += 1
    # The tool's own commands act on the temp dir the finding is about.
    for call in calls:
        if len(call) >= 2 and call[0] == b"hsperfguard" and call[1] in (b"create", b"repair", b"reap", b"audit"):
            call += values.get("scope", [])
    return calls


def strip_setpriv(calls):
    """The calls with a leading `setpriv --reuid=U --regid=G --clear-groups --` taken off, and
    the (uid, gid) each ran as (None: as the caller)."""
    out, users = [], []
    for call in calls:
        m = re.fullmatch(rb"setpriv\0--reuid=(\d+)\0--regid=(\d+)\0--clear-groups\0--\0(.*)", b"\0".join(call), re.S)
        if m:
            users.append((int(m.group(1)), int(m.group(2))))
            out.append(m.group(3).split(b"\0"))
        else:
            users.append(None)
            out.append(call)
    return out, users


def check_command(printed, expected, cwd, where, as_user=None):
    """`printed` must run exactly the argv lists `expected`, each as `as_user` ((uid, gid)
    through setpriv, or None: as the caller)."""
    checked["commands"] += 1
    calls, _, err = run_in_bash(printed.encode("utf-8", "surrogateescape"), cwd)
    calls, users = strip_setpriv(calls)
    if any(u != as_user for u in users):
        fail("%s: `%s` runs as %r, expected %r" % (where, printed, users, as_user))
    if os.listdir(cwd):
        fail("%s: `%s` made %r in the working directory: it ran something" % (where, printed, os.listdir(cwd)))
        for name in os.listdir(cwd):
            path = os.path.join(cwd, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
    if calls != expected:
        fail("%s: `%s` runs %r, expected %r %s" % (where, printed, calls, expected, err[:200]))


def namespace_of(path):
    head, tail = os.path.split(path)
    if os.path.basename(path).startswith(b"hsperfdata_"):
        return path
    if os.path.basename(head).startswith(b"hsperfdata_"):
        return head
    return None


def finding_values(finding, temp_dir, scope):
    path = bytes.fromhex(finding["path_hex"]) if "path_hex" in finding else b(finding["path"])
    values = {"path": path, "temp_dir": temp_dir, "scope": list(scope)}
    ns = namespace_of(path)
    if ns is not None:
        values["namespace"] = ns
        user = os.path.basename(ns)[len(b"hsperfdata_"):]
        if user:
            values["user"] = user
    return values


def check_finding(finding, temp_dir, cwd, where, scope):
    """Each command of the finding's remediation against the catalogue's (or, for the remedies
    the rules write themselves, against what they must say)."""
    printed = commands_in(finding["remediation"])
    if not printed:
        return
    values = finding_values(finding, temp_dir, scope)
    rule = finding["rule"]
    if rule == "tmpdir.unsafe":
        target = values["path"]
        templates = None
        expected = [[[b"chown", b"root:root", target], [b"chmod", b"1777", target]]]
    else:
        templates = commands_in(RULES.get(rule, ""))
        expected = [expected_calls(t, values) for t in templates]
    if len(printed) != len(expected):
        fail("%s: %s prints %d commands, the catalogue has %d: %r" % (where, rule, len(printed), len(expected), printed))
        return
    # A command that changes what is in or at a namespace of another user than root runs with
    # that user's rights.
    owner = None
    if "namespace" in values:
        st = os.lstat(values["namespace"])
        if st.st_uid != 0:
            owner = (st.st_uid, st.st_gid)
    for command, calls in zip(printed, expected):
        changes = calls and calls[0] and calls[0][0] in (b"chmod", b"setfacl", b"unlink", b"rm") and \
            any(b"/" in w for w in calls[0][1:])
        check_command(command, calls, cwd, "%s %s" % (where, rule), as_user=owner if changes else None)


def mkdir_mode(path, mode):
    os.mkdir(path)
    os.chmod(path, mode)


def hostile_names():
    names = [b"u" + bytes([c]) + b"v" for c in range(1, 256) if c != ord("/")]
    names += [b"x$(touch PWNED)\\y", b"`touch PWNED`", b"it's", b"\"$HOME\"", b"-rf", b"*", b"~root",
              b"=ls", b"{a,b}", b"a b", b"a\nb", b"\r", b"\xff\xfe", b"\xc3(", b"\xe2\x80\xaeevil",
              b"\\x0a", b"$'x'", b"x ; touch PWNED #"]
    return names


def version_1(report):
    """The findings of a version 2 report as version 1 wrote them (docs/migration.md): each
    one's severity, path, message, remediation and repairable filled from its rule, its subject
    and the shared texts, as schemas/report-2-to-1.jq does."""
    rules, texts = report.get("rules", []), report.get("texts", {})

    def fill(finding, subject, subject_hex):
        if "path" not in finding:
            finding["path"] = subject
            if subject_hex is not None:
                finding["path_hex"] = subject_hex
        finding.setdefault("severity", rules[finding["rule_index"]]["severity"] if "rule_index" in finding else None)
        finding.setdefault("repairable", False)
        for key in ("message", "remediation"):
            if key + "_ref" in finding:
                finding[key] = texts[finding.pop(key + "_ref")].replace("<path>", finding["path"])

    def walk(value):
        if isinstance(value, dict):
            if isinstance(value.get("findings"), list):
                key = "temp_dir" if "temp_dir" in value else "path"
                for finding in value["findings"]:
                    fill(finding, value[key], value.get(key + "_hex"))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(report)
    return report


def audit_json(args):
    done = subprocess.run([TOOL, "audit", "--no-policy", "--format", "json"] + args, capture_output=True, check=False)
    return version_1(json.loads(done.stdout)), done


def main():
    base = tempfile.mkdtemp(prefix="hsperfguard-remedy-")
    cwd = tempfile.mkdtemp(prefix="hsperfguard-remedy-cwd-")
    try:
        temp_dir = os.fsencode(base) + b"/t '$(touch PWNED)`touch PWNED`\\\n\xff"
        os.mkdir(temp_dir)
        os.chmod(temp_dir, 0o1777)  # as /tmp is: no tmpdir.unsafe, which would stop repair beneath it
        for i, name in enumerate(hostile_names()):
            ns = temp_dir + b"/hsperfdata_" + name
            mkdir_mode(ns, 0o777)
            if i % 2 and os.geteuid() == 0:
                os.chown(ns, 65534, 65534)  # a user's: its commands run as her
            with open(ns + b"/1", "wb") as f:
                f.write(b"\0" * 64)
            os.chmod(ns + b"/1", 0o644)
            os.symlink(b"nowhere", temp_dir + b"/hsperfdata_l" + name)
        report, done = audit_json(["--tmpdir", temp_dir])
        findings = [f for ns in report["namespaces"] for f in ns["findings"]]
        findings += [f for ns in report["namespaces"] for file in ns["files"] for f in file["findings"]]
        findings += [f for root in report["roots"] for f in root["findings"]]
        for finding in findings:
            check_finding(finding, temp_dir, cwd, "audit --format json", [b"--tmpdir", temp_dir])
        json_remedies = {f["remediation"] for f in findings}
        print("audit --format json: %d findings, %d commands checked" % (len(findings), checked["commands"]))

        # The text: each fix line is a JSON remediation, word for word; the next lines and the
        # `or run:` lines are commands too.
        for args, label in ((["--tmpdir", temp_dir], "audit"), (["--tmpdir", temp_dir, "--quiet"], "audit --quiet")):
            done = subprocess.run([TOOL, "audit", "--no-policy", "--verbose"] + args, capture_output=True, check=False)
            text = done.stdout.decode("utf-8", "surrogateescape")
            fixes = re.findall(r"^\s*fix: (.*)$", text, re.M) + re.findall(r"; fix: (.*)$", text, re.M)
            if not fixes:
                fail("%s: no fix lines" % label)
            for fix in fixes:
                if fix not in json_remedies:
                    fail("%s: fix line is no JSON remediation: %s" % (label, fix[:200]))
            expected_scope = [b"--tmpdir", temp_dir]
            for line in re.findall(r"^\s*(?:next\s+)?(hsperfguard (?:repair|reap|audit)[^\n]*?)(?:   |$)", text, re.M):
                words = line.split(" ")
                calls = [[b"hsperfguard"] + [w.encode() for w in words[1:3]] + expected_scope]
                if words[2] != "--dry-run" and words[2] != "--verbose":
                    calls = [[b"hsperfguard", words[1].encode()] + expected_scope]
                check_command(line, calls, cwd, label + " next")
            for line in re.findall(r"or run: (hsperfguard repair[^\n(]*?) \(", text):
                check_command(line, [[b"hsperfguard", b"repair"] + expected_scope], cwd, label + " or run")
            print("%s: %d fix lines, all the JSON's words; next and or-run lines checked" % (label, len(fixes)))

        if os.geteuid() == 0:
            check_reap(temp_dir, cwd)
            check_foreign_root(base, cwd)
        else:
            print("reap and foreign root: not root, not checked")
        print("%d commands run through bash, %d mismatches" % (checked["commands"], len(failures)))
    finally:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)
    return 1 if failures else 0


def check_reap(temp_dir, cwd):
    """What the reaper leaves to a person: an entry of uid 1 in nobody's namespace, which
    nobody may not read."""
    ns = temp_dir + b"/hsperfdata_nobody"
    os.mkdir(ns, 0o755)
    os.chown(ns, 65534, 65534)
    names = [b"x ; touch PWNED #", b"a\nb", b"\xff'$(touch PWNED)"]
    for name in names:
        with open(ns + b"/" + name, "wb") as f:
            f.write(b"\0" * 64)
        os.chmod(ns + b"/" + name, 0o600)
        os.chown(ns + b"/" + name, 1, 1)
        os.utime(ns + b"/" + name, (0, 0))
    done = subprocess.run([TOOL, "reap", "--dry-run", "--min-age", "0", "--tmpdir", temp_dir, "--format", "json"],
                          capture_output=True, check=False)
    report = json.loads(done.stdout)
    seen = 0
    for item in report["plan"]:
        remedy = item.get("remediation")
        if not remedy:
            continue
        path = bytes.fromhex(item["path_hex"]) if "path_hex" in item else b(item["path"])
        for command in commands_in(remedy):
            if command.startswith("rm ") or command.startswith("setpriv "):
                seen += 1
                check_command(command, [[b"rm", b"--", path]], cwd, "reap --dry-run", as_user=(65534, 65534))
    if seen < len(names):
        fail("reap --dry-run: %d rm remedies for %d entries left to a person" % (seen, len(names)))
    text = subprocess.run([TOOL, "reap", "--dry-run", "--min-age", "0", "--tmpdir", temp_dir],
                          capture_output=True, check=False).stdout.decode("utf-8", "surrogateescape")
    printed = re.findall(r"`((?:setpriv [^`]* -- )?rm [^`]*)`", text)
    json_commands = {c for item in report["plan"] if item.get("remediation") for c in commands_in(item["remediation"])}
    for command in printed:
        if command not in json_commands:
            fail("reap text: `%s` is not in the JSON report" % command)
    print("reap --dry-run: %d rm remedies checked, %d in the text" % (seen, len(printed)))


def check_foreign_root(base, cwd):
    """User names from a foreign root's etc/passwd, in remedies that name the user."""
    root = os.fsencode(base) + b"/root"
    os.makedirs(root + b"/etc")
    tmp = root + b"/tmp"
    os.mkdir(tmp)
    os.chmod(tmp, 0o1777)
    users = [b"x$(touch PWNED)\\y", b"a b;touch PWNED", b"it's", b"\xff`touch PWNED`"]
    with open(root + b"/etc/passwd", "wb") as f:
        for i, user in enumerate(users):
            f.write(user + b":x:%d:%d::/:/bin/sh\n" % (2000 + i, 2000 + i))
    for i, user in enumerate(users):
        ns = tmp + b"/hsperfdata_" + user
        os.mkdir(ns, 0o755)
        os.chown(ns, 3000 + i, 3000 + i)  # not the user's: owner-mismatch
    report, _ = audit_json(["--root", root])
    findings = [f for ns in report["namespaces"] for f in ns["findings"] if f["rule"] == "namespace.owner-mismatch"]
    if len(findings) != len(users):
        fail("--root: %d owner-mismatch findings for %d users" % (len(findings), len(users)))
    before = checked["commands"]
    for finding in findings:
        check_finding(finding, tmp, cwd, "audit --root", [b"--root", root])
    print("audit --root: %d user names, %d commands checked" % (len(findings), checked["commands"] - before))


if __name__ == "__main__":
    sys.exit(main())
