#!/usr/bin/env bash
# The README's "First run" sample: what `hsperfguard audit` prints for a small temp dir with the
# problems operators meet most (a stale file of a killed JVM, a file no JVM writes, a namespace
# others can write to, a symlinked namespace). Made as root in private mount and pid namespaces
# with a tmpfs /tmp, so nothing of this host is seen or touched and the pids are the same on
# every machine.
#
#   scripts/readme_sample.sh BINARY                  print the sample block
#   scripts/readme_sample.sh BINARY --update FILE    replace the block between the sample markers of FILE
#
# The test ReadmeSample.FirstRunSampleIsWhatTheAuditPrints runs it and compares the README's
# block with its output (durations aside), so the README shows what the tool prints.
set -euo pipefail
binary=$(readlink -f "$1")
mode=${2:-}
[ -x "$binary" ] || { echo "usage: $0 BINARY [--update README.md]" >&2; exit 2; }

# shellcheck disable=SC2016  # the script is the inner bash's, its $H and $$ expanded there
sample=$(unshare --mount --propagation private --pid --fork --mount-proc \
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root H="$binary" bash -euc '
    exec 9<"$H" && H=/proc/$$/fd/9  # the binary stays reachable when it lies under /tmp
    mount -t tmpfs -o mode=1777 sample /tmp
    cd /tmp
    # A JVM of root killed long ago: its file stays (no JVM of root has started since).
    "$H" create --user root --pid 4242 --command "com.example.Billing --port 8080" >/dev/null
    touch -d "2 hours ago" /tmp/hsperfdata_root/4242
    # Something that is not a JVM file, left in the namespace.
    echo "heap dump notes" >/tmp/hsperfdata_root/notes.txt
    touch -d "2 hours ago" /tmp/hsperfdata_root/notes.txt
    # A namespace made writable by everyone ("to fix a permission problem").
    mkdir /tmp/hsperfdata_nobody && chown nobody: /tmp/hsperfdata_nobody && chmod 0777 /tmp/hsperfdata_nobody
    # A symlinked namespace.
    ln -s /var/tmp /tmp/hsperfdata_daemon
    echo "    \$ sudo hsperfguard audit"
    set +e
    "$H" audit 2>&1 | sed "s/^./    &/"
    echo "    \$ echo \$?"
    "$H" audit >/dev/null 2>&1; echo "    $?"
  ')

if [ "$mode" = "--update" ]; then
  file=$3
  SAMPLE="$sample" /usr/bin/python3 - "$file" <<'EOF'
import os, re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
start = text.index("<!-- sample:")
start = text.index("\n", start) + 1
end = text.index("<!-- end of sample -->", start)
text = text[:start] + "\n" + os.environ["SAMPLE"] + "\n\n" + text[end:]
open(path, "w", encoding="utf-8").write(text)
EOF
else
  printf '%s\n' "$sample"
fi
