#!/usr/bin/env python3
"""Where the tests of a source are: the test file named after it (tests/<tier>/.../NAME_test.cpp,
NAME_posix_test.cpp, NAME_windows_test.cpp) and every test file that includes its header.

  scripts/tests_of.py src/commands/reap_command.cpp [...]   the tests of these sources
  scripts/tests_of.py --all                                  every source, and those with none

A test of the binary (tests/binary/, and the transcripts tests/transcripts/*.t) runs the
subcommands as a process: for a src/commands/<sub>_command.cpp it also lists those that run
`<sub>`. A rule family
(src/checks/<family>.cpp) is tested through the rule ids it makes findings of. A source no
test reaches directly (a part of a larger unit, such as one step of the Linux observer) is
tested through the sources of its layer that include its header: those are listed as
"through". Exit status 1 with --all when a source has no test, direct or through.""" 
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_files():
    for d, _, files in os.walk(os.path.join(ROOT, 'tests')):
        for f in files:
            if f.endswith(('.cpp', '.hpp')) or (f.endswith('.t') and d.endswith('transcripts')):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def tests_of(source, tests, texts, depth=0):
    if not os.path.isabs(source) and not os.path.exists(source):
        source = os.path.join(ROOT, source)
    rel = os.path.relpath(os.path.abspath(source), ROOT)
    parts = rel.split(os.sep)
    if len(parts) < 3 or parts[0] != 'src':
        return None
    layer = parts[1]
    name = re.sub(r'\.(cpp|hpp)$', '', parts[-1])
    headers = ['/'.join(parts[1:-1] + [name + '.hpp'])]
    # A platform's implementation of a neutral interface: platform/posix/files_posix.cpp is
    # platform/files.hpp's.
    if layer == 'platform' and len(parts) == 4 and re.search(r'_(posix|windows)$', name):
        headers.append('platform/' + re.sub(r'_(posix|windows)$', '', name) + '.hpp')
    header = headers[0]
    base = re.sub(r'_(posix|windows)$', '', name)
    found = []
    for t in tests:
        stem = os.path.basename(t)
        if re.fullmatch(re.escape(base) + r'(_posix|_windows)?_test\.cpp', stem):
            found.append((t, 'named after it'))
        else:
            for h in headers:
                if f'#include "{h}"' in texts[t]:
                    found.append((t, 'includes ' + h))
                    break
    if layer == 'checks' and not found:
        # The rule ids the file makes findings of ("family.rule").
        own = set(re.findall(r'"([a-z]+\.[a-z][a-z-]+)"', open(os.path.join(ROOT, rel), errors='replace').read()))
        for t in tests:
            named = sorted(i for i in own if '"' + i + '"' in texts[t])
            if named:
                found.append((t, 'names its rules ' + ', '.join(named[:3]) + (' ...' if len(named) > 3 else '')))
    if layer == 'commands' and base.endswith('_command'):
        sub = base[:-len('_command')]
        pattern = re.compile(r'(\$H|hsperfguard|run_binary|run\()[^\n]{0,40}\b' + re.escape(sub) + r'\b')
        # A transcript's commands are its "  $ " lines; the rest is what the binary printed.
        typed = re.compile(r'^  \$ .*(hsperfguard|\$HSPERFGUARD_BINARY")\s+(help\s+)?' + re.escape(sub) + r'\b', re.M)
        for t in tests:
            runs = (t.startswith('tests/binary/') and pattern.search(texts[t])) or \
                   (t.startswith('tests/transcripts/') and typed.search(texts[t]))
            if runs and not any(t == f for f, _ in found):
                found.append((t, 'runs `' + sub + '`'))
    if not found and depth < 2:
        for s in sources_including(headers, name):
            for t, why in tests_of(s, tests, texts, depth + 1) or []:
                if not any(t == f for f, _ in found):
                    found.append((t, 'through ' + os.path.relpath(s, ROOT)))
    return found


def sources_including(headers, name):
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, 'src')):
        for f in files:
            if f.endswith(('.cpp', '.hpp')) and re.sub(r'\.(cpp|hpp)$', '', f) != name:
                path = os.path.join(d, f)
                text = open(path, errors='replace').read()
                if any(f'#include "{h}"' in text for h in headers):
                    out.append(path)
    return sorted(out)


def main(argv):
    tests = sorted(test_files())
    texts = {t: open(os.path.join(ROOT, t), errors='replace').read() for t in tests}
    if argv[1:] == ['--all']:
        sources = []
        for d, _, files in os.walk(os.path.join(ROOT, 'src')):
            for f in files:
                if f.endswith('.cpp') and f not in ('main.cpp', 'static_runtime_shim.cpp', 'man_page_main.cpp'):
                    sources.append(os.path.relpath(os.path.join(d, f), ROOT))
        none = []
        for s in sorted(sources):
            found = tests_of(s, tests, texts)
            print(f'{s}: {len(found)} test files')
            if not found:
                none.append(s)
        for s in none:
            print('no test:', s)
        return 1 if none else 0
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for s in argv[1:]:
        found = tests_of(s, tests, texts)
        if found is None:
            print(f'{s}: not a source under src/', file=sys.stderr)
            return 2
        print(s + ':')
        for t, why in found:
            print(f'  {t}  ({why})')
        if not found:
            print('  (none)')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:  # its reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
