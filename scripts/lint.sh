#!/usr/bin/env bash
# shellcheck disable=SC2317  # the tools' functions are called through run_tool
# Static analysis of the tree: clang-tidy (the checks of .clang-tidy) over every translation
# unit of src/ in a build's compile_commands.json, cppcheck over src/ (the Windows sources
# too), shellcheck over every shell script of the repository and the bash completion the
# binary prints. Any finding of any tool fails the run; each tool's time is printed.
#
#   bash scripts/lint.sh                 configures build-lint/ (no compile) and uses its
#                                        compile_commands.json
#   bash scripts/lint.sh --build DIR     uses DIR's compile_commands.json (and DIR/hsperfguard,
#                                        when built, for the bash completion)
#   bash scripts/lint.sh --changed [REV] clang-tidy and shellcheck only on what differs from
#                                        REV (default: main): clang-tidy on each translation
#                                        unit that reads a changed file (the build's ninja deps
#                                        log), every one when that is not known
#   --jobs N      clang-tidy processes (default: the number of CPUs)
#   --analyzer    adds clang-analyzer-* to clang-tidy's checks (twice the time; not in CI)
#   --windows     clang-tidy on src/platform/windows/ too, as mingw compiles it (not in CI:
#                 its findings are not yet worked through)
#   --only TOOL   clang-tidy, clang-tidy-windows, cppcheck or shellcheck alone
# docs/internals.md, "Static analysis", says what each tool checks and what is excluded.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

build=""
changed=""
jobs=$(nproc)
analyzer=0
windows=0
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?--build takes a build directory}; shift 2 ;;
    --changed)
      if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then changed=$2; shift 2; else changed=main; shift; fi ;;
    --jobs) jobs=${2:?--jobs takes a number}; shift 2 ;;
    --analyzer) analyzer=1; shift ;;
    --windows) windows=1; shift ;;
    --only) only=${2:?--only takes clang-tidy, cppcheck or shellcheck}; shift 2 ;;
    -h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "lint.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
case "$only" in ""|clang-tidy|clang-tidy-windows|cppcheck|shellcheck) ;; *) echo "lint.sh: --only takes clang-tidy, clang-tidy-windows, cppcheck or shellcheck, not '$only'" >&2; exit 2 ;; esac
for tool in clang-tidy-14 run-clang-tidy-14 cppcheck shellcheck git; do
  command -v "$tool" >/dev/null || { echo "lint.sh: $tool is needed (bash scripts/deps.sh --tests)" >&2; exit 2; }
done

if [ -z "$build" ]; then
  # A configured tree is enough: the compile database, the layers' include roots and the
  # generated version.hpp all exist after the configure step; nothing is compiled.
  build="build-lint"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHSPERFGUARD_BENCH=OFF \
    -DHSPERFGUARD_TESTS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
fi
build=$(cd "$build" && pwd)
[ -f "$build/compile_commands.json" ] || {
  echo "lint.sh: $build has no compile_commands.json (configure it with CMake first)" >&2
  exit 2
}

# The files that differ from $changed (committed or not), relative to the root.
changed_files() {
  { git diff --name-only --diff-filter=d "$(git merge-base "$changed" HEAD)"
    git ls-files --others --exclude-standard; } | sort -u
}

status=0
times=()
# run_tool NAME FUNCTION: runs one tool, records its time and whether it found anything.
run_tool() {
  local name=$1 started=$SECONDS rc=0
  [ -z "$only" ] || [[ $name == "$only"* ]] || return 0
  echo "==> $name"
  "$2" || rc=$?
  times+=("$(printf '%-18s %5d s  %s' "$name" $((SECONDS - started)) "$([ "$rc" = 0 ] && echo clean || echo "FINDINGS (exit $rc)")")")
  [ "$rc" = 0 ] || status=1
}

# The translation units of src/ that clang-tidy must read again after a change: each whose
# source or any header it includes (as the build's last compile recorded them, ninja's deps
# log, layer include roots resolved to src/) is among the changed files, one per line. "all"
# when the answer cannot be known from the log (no deps log, a unit of the database the log
# lacks or holds as stale) or when what changed is how clang-tidy reads every unit (its
# configuration, this script, the build's flags).
units_to_tidy() {
  changed_files | python3 -c '
import json, os, shlex, subprocess, sys
build, root = sys.argv[1], sys.argv[2]
changed = {os.path.join(root, l.strip()) for l in sys.stdin if l.strip()}
if any(os.path.relpath(c, root) in (".clang-tidy", "scripts/lint.sh", "CMakePresets.json")
       or os.path.basename(c) == "CMakeLists.txt"
       or os.path.relpath(c, root).startswith("cmake/") for c in changed):
    print("all"); sys.exit()
units = {}
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    f = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    args = shlex.split(entry["command"]) if "command" in entry else entry.get("arguments", [])
    out = entry.get("output") or next((b for a, b in zip(args, args[1:]) if a == "-o"), None)
    if f.startswith(os.path.join(root, "src") + os.sep):
        if out is None:
            print("all"); sys.exit()
        units[os.path.normpath(os.path.join(entry["directory"], out))] = f
try:
    log = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=True).stdout
except (OSError, subprocess.CalledProcessError):
    print("all"); sys.exit()
deps, current = {}, None
for line in log.splitlines():
    if line and not line[0].isspace():
        target, _, state = line.partition(": #deps")
        current = os.path.normpath(os.path.join(build, target))
        deps[current] = set() if state.rstrip().endswith("(VALID)") else None
    elif line.strip() and current is not None and deps[current] is not None:
        deps[current].add(os.path.realpath(os.path.join(build, line.strip())))
for obj, source in sorted(units.items(), key=lambda u: u[1]):
    if deps.get(obj) is None:
        print("all"); sys.exit()
    if source in changed or deps[obj] & changed:
        print(source)
' "$build" "$root"
}

clang_tidy() {
  # Every translation unit under src/ (not the generated rule catalogue, not tests/ or fuzz/).
  local files=("^$root/src/") checks=()
  if [ -n "$changed" ]; then
    local list
    list=$(units_to_tidy)
    if ! grep -qx all <<<"$list"; then
      files=()
      while IFS= read -r f; do
        [ -n "$f" ] && files+=("^$f\$")
      done <<<"$list"
      [ ${#files[@]} -gt 0 ] || { echo "no translation unit of src/ reads a changed file"; return 0; }
      echo "${#files[@]} translation units read a changed file"
    fi
  fi
  [ "$analyzer" = 0 ] || checks=(-checks=clang-analyzer-*)
  # -Wno-unknown-warning-option: a g++ build's database holds g++'s flags (-Wno-restrict).
  # The output of each file comes whole; a file that fails makes the exit status 1.
  # Only the findings are shown: not each file's command line, nor the count of warnings
  # it suppressed in system headers.
  run-clang-tidy-14 -p "$build" -j "$jobs" -quiet -extra-arg=-Wno-unknown-warning-option \
    "${checks[@]}" "${files[@]}" 2>&1 |
    { grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|clang-tidy-14 .*-quiet ' || true; }
  return "${PIPESTATUS[0]}"
}

# The Windows sources are in no Linux compile database: clang-tidy reads them as the mingw
# build compiles them (its target, libstdc++ and definitions; nlohmann and CLI11 from the host,
# as cmake/ does for the cross build), one process per file, $jobs at a time.
clang_tidy_windows() {
  local gxx=/usr/lib/gcc/x86_64-w64-mingw32/12-posix/include/c++ files=() f
  [ -d "$gxx" ] || { echo "lint.sh: $gxx missing (g++-mingw-w64-x86-64-posix)" >&2; return 2; }
  for f in src/platform/windows/*.cpp; do
    [ -z "$changed" ] || changed_files | grep -qE '^src/.*\.(hpp|h)$|^'"$f"'$' && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  local hosthdr
  hosthdr=$(mktemp -d)
  ln -s /usr/include/nlohmann "$hosthdr/nlohmann"
  ln -s /usr/include/CLI "$hosthdr/CLI"
  local rc=0
  printf '%s\0' "${files[@]}" |
    xargs -0 -P "$jobs" -I{} clang-tidy-14 --quiet {} -- --target=x86_64-w64-mingw32 -std=c++20 \
      -nostdinc++ -isystem "$gxx" -isystem "$gxx/x86_64-w64-mingw32" -isystem "$gxx/backward" \
      -DUNICODE -D_UNICODE -DNOMINMAX -DWIN32_LEAN_AND_MEAN -D_WIN32_WINNT=0x0A00 \
      -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion \
      -I "$build/layers/model" -I "$build/layers/platform" -I "$build/generated" -I "$hosthdr" 2>&1 |
    { grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' || true; }
  rc=${PIPESTATUS[1]}
  rm -rf "$hosthdr"
  return "$rc"
}

cppcheck_run() {
  # warning, performance, portability: defects and their near relatives; not style (its
  # useStlAlgorithm, shadowFunction and the like are opinions; clang-tidy's checks cover
  # the rest). Each suppression is inline (`// cppcheck-suppress id ; reason`) at its line.
  local common=('--enable=warning,performance,portability' --inline-suppr --error-exitcode=1
                --quiet --template='{file}:{line}:{column}: {severity}: {message} [{id}]'
                --std=c++20 -j "$jobs")
  local rc=0
  cppcheck "${common[@]}" --project="$build/compile_commands.json" --file-filter="$root/src/*" || rc=1
  # The Windows sources, in no Linux compile database: with the layers' include roots and
  # _WIN32, as the mingw build sees them (system headers are not read by cppcheck).
  cppcheck "${common[@]}" --language=c++ --platform=win64 -D_WIN32 -DWIN32 \
    -I "$build/layers/model" -I "$build/layers/checks" -I "$build/layers/platform" \
    -I "$build/generated" src/platform/windows || rc=1
  return "$rc"
}

shellcheck_run() {
  # Every file git knows that is a shell script by name (*.sh) or by its first line, the
  # RPM scriptlets (/bin/sh, no #! line), and the bash completion hsperfguard prints.
  local scripts=() sh_scriptlets=(packaging/rpm/post packaging/rpm/postun packaging/rpm/preun)
  local f rc=0
  while IFS= read -r f; do
    scripts+=("$f")
  done < <(if [ -n "$changed" ]; then changed_files; else git ls-files; fi |
           while IFS= read -r f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
           xargs -0 -r awk 'FNR == 1 { if (FILENAME ~ /\.sh$/ || /^#!(\/usr\/bin\/env )?\/?([a-z\/]*\/)?(ba|da)?sh( |$)/) print FILENAME; nextfile }')
  if [ -n "$changed" ]; then
    local keep=() s
    for s in "${sh_scriptlets[@]}"; do changed_files | grep -qxF "$s" && keep+=("$s"); done
    sh_scriptlets=("${keep[@]}")
  fi
  [ ${#scripts[@]} -eq 0 ] || shellcheck "${scripts[@]}" || rc=1
  [ ${#sh_scriptlets[@]} -eq 0 ] || shellcheck --shell=sh "${sh_scriptlets[@]}" || rc=1
  echo "$((${#scripts[@]} + ${#sh_scriptlets[@]})) scripts"
  if [ -x "$build/hsperfguard" ]; then
    # The completion's word lists are fixed words split on purpose (SC2207, the
    # bash-completion idiom), and `COMP_CWORD -ge 2` inside [[ ]] is arithmetic, where a
    # variable's name is its value (SC2309). zsh loads the same file through bashcompinit
    # (the tool has no zsh mode to check it as zsh reads it).
    "$build/hsperfguard" --bash-completion |
      shellcheck --shell=bash --exclude=SC2207,SC2309 - || rc=1
  else
    echo "no $build/hsperfguard: the bash completion it prints is not checked"
  fi
  return "$rc"
}

run_tool clang-tidy clang_tidy
if [ "$windows" = 1 ] || [ "$only" = clang-tidy-windows ]; then
  run_tool clang-tidy-windows clang_tidy_windows
fi
run_tool cppcheck cppcheck_run
run_tool shellcheck shellcheck_run
echo "==> lint times"
printf '%s\n' "${times[@]}"
exit "$status"
