#!/usr/bin/env bash
# The packaged units as a real systemd runs them, on Debian 12 (bookworm, systemd 252) and
# Debian 13 (trixie, systemd 257): a debootstrapped root of each, booted with systemd-nspawn,
# the .deb installed into it with apt, its timers and services run, JVMs of two JDKs beside
# them, then the package purged. One line per check, `ok` or `FAIL`, with what was observed.
#
#   bash tests/field/systemd_field.sh [--deb FILE | --build DIR] [--release bookworm|trixie]...
#                                     [--prepare]
#
# --deb: the package to install; --build: the build directory cpack makes it from (default
# build-release when it is configured, else build, configured with the default preset and
# built when needed); --release: one of the two (default both); --prepare: only make the
# cached roots. Needs root, debootstrap, systemd-nspawn (systemd-container), nsenter, and
# http://deb.debian.org/debian the first time: each root is made once with
# `debootstrap --variant=minbase` and kept as a tarball under /var/cache/hsperfguard-field,
# named after a hash of the release, the mirror and the package list below (change either
# and a new root is made, the old tarball removed). Unreachable archive: the run FAILS.
set -euo pipefail
cd "$(dirname "$0")/../.."

mirror=${HSPERFGUARD_FIELD_MIRROR:-http://deb.debian.org/debian}
cache=${HSPERFGUARD_FIELD_CACHE:-/var/cache/hsperfguard-field}
# What each root holds beyond minbase: systemd as init; dbus, as on any Debian system with
# systemd; man-db, so that `systemd-analyze verify` finds the man page the units' Documentation=
# names (without man-db it fails every unit that names one, Debian's own included).
include=systemd,systemd-sysv,dbus,man-db
# The JDKs the JVMs run from, bind-mounted read-only (Debian's keeps its configuration in /etc).
jdk17=/usr/lib/jvm/java-17-openjdk-amd64
jdk25=/usr/lib/jvm/temurin-25-jdk-amd64

deb=
build=
releases=()
prepare_only=no
while [ $# -gt 0 ]; do
  case $1 in
    --deb) deb=$(realpath "$2"); shift 2 ;;
    --build) build=$2; shift 2 ;;
    --release) releases+=("$2"); shift 2 ;;
    --prepare) prepare_only=yes; shift ;;
    *) echo "usage: $0 [--deb FILE | --build DIR] [--release bookworm|trixie]... [--prepare]" >&2; exit 2 ;;
  esac
done
[ ${#releases[@]} -gt 0 ] || releases=(bookworm trixie)

started=$SECONDS
failures=0
# step NAME: prints the time since the last step began and the new step's name.
step_started=$SECONDS
step() {
  echo "-- [$((SECONDS - started)) s, last step $((SECONDS - step_started)) s] $*"
  step_started=$SECONDS
}
# check NAME OBSERVED EXPECTED: ok when they are equal.
check() {
  if [ "$2" = "$3" ]; then
    printf 'ok    %s: %s\n' "$1" "$2"
  else
    printf 'FAIL  %s: %s (expected %s)\n' "$1" "$2" "$3"
    failures=$((failures + 1))
  fi
}
# check_that NAME OBSERVED CONDITION-STATUS: ok when the condition held (status 0).
check_that() {
  if [ "$3" = 0 ]; then
    printf 'ok    %s: %s\n' "$1" "$2"
  else
    printf 'FAIL  %s: %s\n' "$1" "$2"
    failures=$((failures + 1))
  fi
}
fail() {
  printf 'FAIL  %s\n' "$*"
  failures=$((failures + 1))
}

if [ "$(id -u)" != 0 ]; then
  echo "FAIL: needs root (debootstrap, systemd-nspawn)" >&2
  exit 1
fi
for program in debootstrap systemd-nspawn nsenter tar sha256sum; do
  if ! command -v "$program" >/dev/null; then
    echo "FAIL: $program not found (Debian: debootstrap, systemd-container, util-linux)" >&2
    exit 1
  fi
done

# root_tarball RELEASE: the cached root of RELEASE, made when missing. Prints its path.
root_tarball() {
  local release=$1 key tarball work
  key=$(printf '%s\n' "$release" "$mirror" "$include" "cache format 1" | sha256sum | cut -c1-16)
  tarball=$cache/$release-$key.tar
  if [ -s "$tarball" ]; then
    echo "$tarball"
    return 0
  fi
  mkdir -p "$cache"
  chmod 0700 "$cache"
  work=$(mktemp -d "$cache/.bootstrap-$release.XXXXXX")
  echo "making the $release root (debootstrap --variant=minbase from $mirror)" >&2
  if ! debootstrap --variant=minbase --include="$include" "$release" "$work/root" "$mirror" \
      >"$work/debootstrap.log" 2>&1; then
    echo "FAIL: debootstrap $release from $mirror failed (is the archive reachable?); its log ends:" >&2
    tail -n 15 "$work/debootstrap.log" >&2
    grep -h . "$work/root/debootstrap/debootstrap.log" 2>/dev/null | tail -n 5 >&2 || true
    rm -rf "$work"
    return 1
  fi
  # No package cache in the tarball; the lists stay, so apt resolves the .deb's dependencies.
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/debootstrap"
  tar -C "$work/root" --numeric-owner --xattrs -cf "$work/root.tar" .
  rm -f "$cache/$release"-*.tar
  mv "$work/root.tar" "$tarball"
  rm -rf "$work"
  echo "$tarball"
}

if [ "$prepare_only" = yes ]; then
  for release in "${releases[@]}"; do
    step "root of $release"
    root_tarball "$release"
  done
  exit 0
fi

for program in python3 dpkg-deb; do
  if ! command -v "$program" >/dev/null; then
    echo "FAIL: $program not found" >&2
    exit 1
  fi
done
for jdk in "$jdk17" "$jdk25"; do
  if [ ! -x "$jdk/bin/java" ]; then
    echo "FAIL: no JDK at $jdk (JDK 17: Debian's openjdk-17-jdk-headless; JDK 25: Temurin)" >&2
    exit 1
  fi
done

work=$(mktemp -d /var/tmp/hsperfguard-field.XXXXXX)
nspawn_pid=
# stop_container: ends the booted container (SIGTERM: nspawn asks its systemd to power off;
# SIGKILL after 20 s), by the pid recorded when it was started.
stop_container() {
  [ -n "$nspawn_pid" ] || return 0
  if kill -TERM "$nspawn_pid" 2>/dev/null; then
    local i=0
    while kill -0 "$nspawn_pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
  fi
  wait "$nspawn_pid" 2>/dev/null || true
  nspawn_pid=
}
cleanup() {
  stop_container
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The package: the one given, or cpack's from the build directory.
if [ -z "$deb" ]; then
  step "build the .deb (cpack)"
  if [ -z "$build" ]; then
    build="build"
    if [ -f build-release/CMakeCache.txt ]; then build="build-release"; fi
  fi
  if [ ! -f "$build/CMakeCache.txt" ]; then
    case $build in
      build) cmake --preset default >/dev/null ;;
      build-release) cmake --preset release >/dev/null ;;
      *) echo "FAIL: $build is not a configured build directory" >&2; exit 1 ;;
    esac
  fi
  cmake --build "$build" -j2 --target hsperfguard hsperfguard_man hsperfguard_policy_man \
    hsperfguard_completion hsperfguard_deb_doc >/dev/null
  (cd "$build" && cpack -G DEB -B "$work/pkg" >/dev/null)
  deb=$(ls "$work"/pkg/hsperfguard_*.deb)
fi
echo "package: $deb"
version=$(dpkg-deb --field "$deb" Version)
# The same package as a version before 0.1.1 was: its units under /lib/systemd/system, no prerm.
# An upgrade from it must leave the units in place (on merged-/usr both paths are one file).
old_deb=$work/hsperfguard_${version}~lib_old.deb
dpkg-deb -R "$deb" "$work/old"
mkdir -p "$work/old/lib/systemd"
mv "$work/old/usr/lib/systemd/system" "$work/old/lib/systemd/system"
rmdir "$work/old/usr/lib/systemd" 2>/dev/null || true
sed -i 's# usr/lib/systemd/system/# lib/systemd/system/#' "$work/old/DEBIAN/md5sums"
sed -i "s/^Version: .*/Version: ${version}~lib/" "$work/old/DEBIAN/control"
rm -f "$work/old/DEBIAN/prerm"
dpkg-deb -b "$work/old" "$old_deb" >/dev/null
rm -rf "$work/old"

# The metrics drop-in of docs/operations.md ("A fleet", step 2), as written there.
metrics_dropin=$(sed -n '/^       \[Service\]$/,/^$/p' docs/operations.md | sed 's/^       //')
if [ -z "$metrics_dropin" ]; then
  echo "FAIL: no metrics drop-in ([Service] block) found in docs/operations.md" >&2
  exit 1
fi

# The capability names by bit (linux/capability.h), to decode /proc/PID/status.
cap_names=(chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap
  linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner sys_module
  sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice sys_resource sys_time
  sys_tty_config mknod lease audit_write audit_control setfcap mac_override mac_admin syslog
  wake_alarm block_suspend audit_read perfmon bpf checkpoint_restore)
decode_caps() {
  local mask=$((16#$1)) bit names=()
  for bit in "${!cap_names[@]}"; do
    if (((mask >> bit) & 1)); then names+=("cap_${cap_names[$bit]}"); fi
  done
  local IFS=,
  echo "${names[*]:-none}"
}

units=(hsperfguard-reap.service hsperfguard-reap.timer hsperfguard-audit.service hsperfguard-audit.timer)

# field RELEASE: every check on one release.
field() {
  local release=$1 tarball dir root leader i planted systemd_version
  step "$release: the cached root"
  tarball=$(root_tarball "$release") || { fail "$release: no root (debootstrap failed)"; return 0; }
  dir=$work/$release
  root=$dir/root
  mkdir -p "$root"
  tar -C "$root" --numeric-owner --xattrs -xf "$tarball"
  cp "$deb" "$old_deb" "$root/root/"
  mkdir -p "$root/opt/field"
  printf '%s\n' 'public class Sleep { public static void main(String[] a) throws Exception { Thread.sleep(Long.MAX_VALUE); } }' \
    >"$root/opt/field/Sleep.java"
  chmod -R a+rX "$root/opt/field"

  step "$release: boot (systemd-nspawn -b)"
  local binds=(--bind-ro=/usr/lib/jvm)
  [ -d /etc/java-17-openjdk ] && binds+=(--bind-ro=/etc/java-17-openjdk)
  systemd-nspawn -D "$root" -M "hsperfguard-$release" -b --register=no --keep-unit --private-network \
    "${binds[@]}" --console=passive >"$dir/nspawn.log" 2>&1 &
  nspawn_pid=$!
  # The container's init: the child of nspawn that is pid 1 in its own pid namespace.
  leader=
  for ((i = 0; i < 150; i++)); do
    for child in $(pgrep -P "$nspawn_pid" || true); do
      if grep -qE '^NSpid:[[:space:]]+[0-9]+[[:space:]]+1$' "/proc/$child/status" 2>/dev/null; then
        leader=$child
      fi
    done
    [ -n "$leader" ] && break
    kill -0 "$nspawn_pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ -z "$leader" ]; then
    fail "$release: the container did not start; nspawn said:"
    cat "$dir/nspawn.log"
    stop_container
    return 0
  fi
  # inside COMMAND...: runs COMMAND in the container (every namespace of its init, its root).
  inside() { nsenter -t "$leader" -a "$@"; }
  # Until its manager listens, systemctl cannot connect ("Failed to connect to system scope
  # bus"): asked again until it answers, then it waits for the boot to finish.
  local state
  for ((i = 0; i < 120; i++)); do
    state=$(timeout 120 nsenter -t "$leader" -a systemctl is-system-running --wait 2>&1) || true
    case $state in *"Failed to connect"*) sleep 0.5 ;; *) break ;; esac
  done
  check "$release: systemctl is-system-running --wait" "$state" running
  [ "$state" = running ] || inside systemctl --failed --no-pager || true
  systemd_version=$(inside systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
  check "$release: systemd" "$systemd_version" "$([ "$release" = bookworm ] && echo 252 || echo 257)"

  step "$release: JVMs (JDK 17 as root, JDK 25 as uid 1000)"
  inside useradd -u 1000 -m field
  inside systemd-run --quiet --unit=field-jvm17 "$jdk17/bin/java" -XX:+UsePerfData /opt/field/Sleep.java
  inside systemd-run --quiet --unit=field-jvm25 --uid=field "$jdk25/bin/java" -XX:+UsePerfData /opt/field/Sleep.java
  local pid17 pid25
  pid17=$(inside systemctl show -P MainPID field-jvm17)
  pid25=$(inside systemctl show -P MainPID field-jvm25)
  local live17=/tmp/hsperfdata_root/$pid17 live25=/tmp/hsperfdata_field/$pid25
  for ((i = 0; i < 150; i++)); do
    inside test -s "$live17" && inside test -s "$live25" && break
    sleep 0.2
  done
  check "$release: live JVMs' files" "$(inside stat -c '%n %U %a %s' "$live17" "$live25" 2>&1 | tr '\n' ' ')" \
    "$live17 root 600 32768 $live25 field 600 32768 "
  # Stale files: copies of the live ones under pids that are gone, each its owner's, 0600,
  # two hours old; one foreign entry of root's.
  local dead1 dead2
  dead1=$(dead_pid)
  dead2=$(dead_pid)
  local stale_root=/tmp/hsperfdata_root/$dead1 stale_field=/tmp/hsperfdata_field/$dead2
  inside sh -c "cp '$live17' '$stale_root' && chmod 0600 '$stale_root' && touch -d '2 hours ago' '$stale_root'"
  inside runuser -u field -- sh -c "cp '$live25' '$stale_field' && chmod 0600 '$stale_field' && touch -d '2 hours ago' '$stale_field'"
  planted=$SECONDS
  check "$release: planted stale files" "$(inside stat -c '%n %U %a' "$stale_root" "$stale_field" | tr '\n' ' ')" \
    "$stale_root root 600 $stale_field field 600 "

  step "$release: apt-get install ./$(basename "$deb")"
  local out
  out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "/root/$(basename "$deb")" 2>&1) && rc=0 || rc=$?
  check "$release: apt-get install exit status" "$rc" 0
  [ "$rc" = 0 ] || printf '%s\n' "$out" | tail -n 20
  check "$release: dpkg -S /usr/lib/systemd/system/hsperfguard-reap.service" \
    "$(inside dpkg -S /usr/lib/systemd/system/hsperfguard-reap.service 2>&1)" \
    "hsperfguard: /usr/lib/systemd/system/hsperfguard-reap.service"
  for unit in "${units[@]}"; do
    local fragment
    fragment=$(inside systemctl show -P FragmentPath "$unit")
    check "$release: $unit loaded from" "$(inside realpath "$fragment")" "/usr/lib/systemd/system/$unit"
  done
  local exec_path
  exec_path=$(inside systemctl show -P ExecStart hsperfguard-reap.service | sed -n 's/.*path=\([^ ;]*\).*/\1/p')
  check "$release: reap ExecStart path" "$exec_path" /usr/bin/hsperfguard
  check "$release: $exec_path is the package's" "$(inside dpkg -S "$exec_path" 2>&1)" "hsperfguard: /usr/bin/hsperfguard"
  exec_path=$(inside systemctl show -P ExecStart hsperfguard-audit.service | sed -n 's/.*path=\([^ ;]*\).*/\1/p')
  check "$release: audit ExecStart path" "$exec_path" /usr/bin/hsperfguard
  check "$release: directories after install" \
    "$(inside stat -c '%n %a' /run/hsperfguard /var/lib/hsperfguard /var/log/hsperfguard | tr '\n' ' ')" \
    "/run/hsperfguard 755 /var/lib/hsperfguard 750 /var/log/hsperfguard 750 "

  step "$release: systemd-analyze verify, security"
  out=$(inside systemd-analyze verify "${units[@]/#//usr/lib/systemd/system/}" 2>&1) && rc=0 || rc=$?
  check "$release: systemd-analyze verify (4 units, man-db present) exit status" "$rc" 0
  check "$release: systemd-analyze verify output" "${out:-none}" none
  local name score
  for name in reap audit; do
    score=$(inside systemd-analyze security --no-pager "hsperfguard-$name.service" 2>&1 |
      sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
    check_that "$release: systemd-analyze security hsperfguard-$name.service exposure" "${score:-none}" \
      "$([ -n "$score" ]; echo $?)"
    eval "score_${release}_$name=\$score"
  done
  # docs/operations.md says what was measured here; a change of the units or of systemd shows.
  local reap_score=score_${release}_reap audit_score=score_${release}_audit said
  said="reap ${!reap_score}, audit ${!audit_score} (systemd $systemd_version"
  check_that "$release: docs/operations.md says \"$said\"" "$(grep -cF "$said" docs/operations.md || true) line(s)" \
    "$(grep -qF "$said" docs/operations.md; echo $?)"

  step "$release: timers"
  out=$(inside systemctl enable --now hsperfguard-reap.timer hsperfguard-audit.timer 2>&1) && rc=0 || rc=$?
  check "$release: systemctl enable --now (both timers) exit status" "$rc" 0
  for name in reap audit; do
    check "$release: hsperfguard-$name.timer" \
      "$(inside systemctl is-enabled "hsperfguard-$name.timer") $(inside systemctl is-active "hsperfguard-$name.timer")" \
      "enabled active"
    local next
    # A calendar timer's next elapse is in real time, the others' in monotonic time.
    next=$(inside systemctl show -P NextElapseUSecRealtime "hsperfguard-$name.timer")
    case $next in "" | n/a | 0) next="+$(inside systemctl show -P NextElapseUSecMonotonic "hsperfguard-$name.timer") after boot" ;; esac
    check_that "$release: hsperfguard-$name.timer next elapse" "${next:-none}" "$([ -n "$next" ]; echo $?)"
  done

  step "$release: apt-get purge with the timers enabled (no service has run)"
  purge_with_timers_enabled "$release" first

  step "$release: upgrade from the /lib/systemd/system layout with the timers enabled"
  out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y "/root/$(basename "$old_deb")" 2>&1) && rc=0 || rc=$?
  check "$release: install $version~lib (units in /lib/systemd/system)" "$rc" 0
  inside systemctl enable --now hsperfguard-reap.timer hsperfguard-audit.timer >/dev/null 2>&1 || true
  out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y "/root/$(basename "$deb")" 2>&1) && rc=0 || rc=$?
  check "$release: upgrade to $version exit status" "$rc" 0
  [ "$rc" = 0 ] || printf '%s\n' "$out" | tail -n 20
  check "$release: units after the upgrade" \
    "$(inside sh -c 'ls /usr/lib/systemd/system/hsperfguard-* | tr "\n" " "')" \
    "$(printf '/usr/lib/systemd/system/%s ' hsperfguard-audit.service hsperfguard-audit.timer hsperfguard-reap.service hsperfguard-reap.timer)"
  check "$release: timers after the upgrade" \
    "$(inside systemctl is-enabled hsperfguard-reap.timer hsperfguard-audit.timer | tr '\n' ' ')$(inside systemctl is-active hsperfguard-reap.timer hsperfguard-audit.timer | tr '\n' ' ')" \
    "enabled enabled active active "
  # The reap leaves files younger than --min-age 60s, by their ctime too, which no one can
  # set back: the checks above ran while the planted files aged; the rest of the minute here.
  step "$release: waiting for the planted files to be 62 s old"
  while [ $((SECONDS - planted)) -lt 62 ]; do sleep 1; done
  step "$release: the reap service"
  inside systemctl start hsperfguard-reap.service || true
  check "$release: hsperfguard-reap.service Result ExecMainStatus" \
    "$(inside systemctl show -P Result hsperfguard-reap.service) $(inside systemctl show -P ExecMainStatus hsperfguard-reap.service)" \
    "success 0"
  check "$release: stale files after the reap" \
    "$(inside sh -c "ls -d '$stale_root' '$stale_field' 2>/dev/null | tr '\n' ' '")" ""
  check "$release: live JVMs' files after the reap" \
    "$(inside sh -c "for f in '$live17' '$live25'; do [ -e \"\$f\" ] && printf '%s ' \"\$f\"; done")" \
    "$live17 $live25 "
  inside journalctl -u hsperfguard-reap.service -o cat --no-pager | grep -i 'identity\|error' | head -n 3 || true

  step "$release: the audit service (healthy host, live JVMs)"
  inside systemctl start hsperfguard-audit.service 2>/dev/null || true
  check "$release: hsperfguard-audit.service Result ExecMainStatus" \
    "$(inside systemctl show -P Result hsperfguard-audit.service) $(inside systemctl show -P ExecMainStatus hsperfguard-audit.service)" \
    "success 0"
  inside cat /var/lib/hsperfguard/audit.json >"$dir/audit.json" 2>/dev/null || true
  local verdicts
  verdicts=$(python3 - "$dir/audit.json" "$live17" "$live25" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("findings=unreadable(%s) live=unreadable" % e)
    sys.exit(0)
rules = sorted("%s:%d" % (k, v) for k, v in r["summary"]["by_rule"].items() if v)
files = {f["path"]: (f.get("verdict") or {}).get("verdict") for ns in r["namespaces"] for f in ns["files"]}
print("findings=%s" % (",".join(rules) or "none"))
print("live=%s" % ",".join("%s" % files.get(p) for p in sys.argv[2:]))
PY
)
  check "$release: audit findings" "$(sed -n 's/^findings=//p' <<<"$verdicts")" none
  check "$release: audit verdicts of the live JVMs' files" "$(sed -n 's/^live=//p' <<<"$verdicts")" "live,live"

  step "$release: the reap service's capabilities while it runs"
  # The reap waits for its lock (--wait): a process of ours holds it, so the service runs as
  # long as we need to read its /proc/PID/status.
  inside systemd-run --quiet --unit=field-lock-holder flock /run/hsperfguard/reap.lock sleep 300
  for ((i = 0; i < 50; i++)); do
    if ! inside flock -n /run/hsperfguard/reap.lock true; then break; fi
    sleep 0.1
  done
  inside systemctl start --no-block hsperfguard-reap.service
  local mainpid=0
  for ((i = 0; i < 100; i++)); do
    mainpid=$(inside systemctl show -P MainPID hsperfguard-reap.service)
    [ "$mainpid" != 0 ] && [ "$(inside cat "/proc/$mainpid/comm" 2>/dev/null)" = hsperfguard ] && break
    sleep 0.1
  done
  local status set value
  status=$(inside cat "/proc/$mainpid/status" 2>/dev/null || true)
  for set in CapInh CapPrm CapEff CapBnd CapAmb; do
    value=$(sed -n "s/^$set:[[:space:]]*//p" <<<"$status")
    echo "      $release reap (pid $mainpid) $set $value = $(decode_caps "${value:-0}")"
    eval "caps_${release}_$set=\$value"
  done
  echo "      $release reap NoNewPrivs $(sed -n 's/^NoNewPrivs:[[:space:]]*//p' <<<"$status"), Seccomp $(sed -n 's/^Seccomp:[[:space:]]*//p' <<<"$status"), Uid $(sed -n 's/^Uid:[[:space:]]*//p' <<<"$status" | tr '\t' ' ')"
  local prm eff bnd
  prm=$((16#$(sed -n 's/^CapPrm:[[:space:]]*//p' <<<"$status"))) || prm=0
  eff=$((16#$(sed -n 's/^CapEff:[[:space:]]*//p' <<<"$status"))) || eff=0
  bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' <<<"$status")
  check "$release: CAP_SETUID, CAP_SETGID permitted and effective" \
    "$(((prm >> 7) & (prm >> 6) & (eff >> 7) & (eff >> 6) & 1))" 1
  check "$release: bounding set" "$(decode_caps "${bnd:-0}")" \
    "cap_dac_read_search,cap_kill,cap_setgid,cap_setuid,cap_sys_ptrace"
  check "$release: permitted = bounding set" "$(decode_caps "$(printf '%x' "$prm")")" "$(decode_caps "${bnd:-0}")"
  inside systemctl stop field-lock-holder
  for ((i = 0; i < 100; i++)); do
    [ "$(inside systemctl show -P ActiveState hsperfguard-reap.service)" = inactive ] && break
    sleep 0.1
  done
  check "$release: that reap, once the lock was free: Result ExecMainStatus" \
    "$(inside systemctl show -P Result hsperfguard-reap.service) $(inside systemctl show -P ExecMainStatus hsperfguard-reap.service)" \
    "success 0"

  step "$release: the reap timer fires by itself (drop-in OnActiveSec=1s)"
  local before after
  before=$(inside systemctl show -P ExecMainStartTimestampMonotonic hsperfguard-reap.service)
  inside mkdir -p /etc/systemd/system/hsperfguard-reap.timer.d
  inside sh -c 'printf "[Timer]\nOnActiveSec=1s\nRandomizedDelaySec=0\nAccuracySec=1s\n" > /etc/systemd/system/hsperfguard-reap.timer.d/field.conf'
  inside systemctl daemon-reload
  inside systemctl restart hsperfguard-reap.timer
  after=$before
  for ((i = 0; i < 300; i++)); do
    after=$(inside systemctl show -P ExecMainStartTimestampMonotonic hsperfguard-reap.service)
    [ "$after" != "$before" ] && [ "$(inside systemctl show -P ActiveState hsperfguard-reap.service)" = inactive ] && break
    sleep 0.1
  done
  check_that "$release: the timer started the reap" "start $before -> $after (monotonic us)" \
    "$([ "$after" != "$before" ]; echo $?)"
  check "$release: that reap: Result ExecMainStatus" \
    "$(inside systemctl show -P Result hsperfguard-reap.service) $(inside systemctl show -P ExecMainStatus hsperfguard-reap.service)" \
    "success 0"
  inside rm -r /etc/systemd/system/hsperfguard-reap.timer.d
  inside systemctl daemon-reload
  inside systemctl restart hsperfguard-reap.timer

  step "$release: directory modes after the services' restarts"
  inside systemctl restart hsperfguard-reap.service hsperfguard-audit.service 2>/dev/null || true
  check "$release: directories after the services ran" \
    "$(inside stat -c '%n %a' /var/lib/hsperfguard /var/log/hsperfguard | tr '\n' ' ')" \
    "/var/lib/hsperfguard 750 /var/log/hsperfguard 750 "

  step "$release: the metrics drop-in of docs/operations.md, promtool on the host"
  inside install -d -m 0755 /var/lib/prometheus/node-exporter
  inside mkdir -p /etc/systemd/system/hsperfguard-audit.service.d /etc/systemd/system/hsperfguard-reap.service.d
  printf '%s\n' "$metrics_dropin" | inside sh -c 'cat > /etc/systemd/system/hsperfguard-audit.service.d/metrics.conf'
  # The reap's: "the same with --metrics .../hsperfguard-reap.prom" on its own ExecStart.
  local reap_exec
  reap_exec=$(inside sed -n '/^ExecStart=/,/[^\\]$/p' /usr/lib/systemd/system/hsperfguard-reap.service)
  printf '[Service]\nReadWritePaths=/var/lib/prometheus/node-exporter\nExecStart=\n%s \\\n          --metrics /var/lib/prometheus/node-exporter/hsperfguard-reap.prom\n' "$reap_exec" |
    inside sh -c 'cat > /etc/systemd/system/hsperfguard-reap.service.d/metrics.conf'
  inside systemctl daemon-reload
  inside systemctl start hsperfguard-audit.service hsperfguard-reap.service 2>/dev/null || true
  for name in audit reap; do
    local file=/var/lib/prometheus/node-exporter/hsperfguard.prom
    [ "$name" = reap ] && file=/var/lib/prometheus/node-exporter/hsperfguard-reap.prom
    inside cat "$file" >"$dir/$name.prom" 2>/dev/null || true
    if ! command -v promtool >/dev/null; then
      fail "$release: promtool not found on the host (Debian: prometheus; scripts/deps.sh --tests)"
      continue
    fi
    out=$(promtool check metrics <"$dir/$name.prom" 2>&1) && rc=0 || rc=$?
    check "$release: promtool check metrics ($name, $(wc -l <"$dir/$name.prom") lines)" "$rc${out:+ $out}" 0
  done
  inside rm -r /etc/systemd/system/hsperfguard-audit.service.d /etc/systemd/system/hsperfguard-reap.service.d
  inside systemctl daemon-reload

  step "$release: apt-get purge with the timers enabled (after the services ran)"
  purge_with_timers_enabled "$release" last

  step "$release: shut down, remove the copy of the root"
  stop_container
  rm -rf "$dir"
}

# dead_pid: a pid of the container that was used and is gone (its process exited).
dead_pid() {
  # shellcheck disable=SC2016  # expanded by the container's shell
  inside sh -c 'true & p=$!; wait $p; echo $p'
}

# check_left WHAT: nothing of the package is left in the container's systemd or file system.
check_left() {
  check "$1: systemctl list-units --all 'hsperfguard*'" \
    "$(inside systemctl list-units --all --no-legend --plain 'hsperfguard*' | tr '\n' ' ')" ""
  check "$1: systemctl --failed" "$(inside systemctl --failed --no-legend --plain | tr '\n' ' ')" ""
  check "$1: links in /etc/systemd/system" \
    "$(inside find /etc/systemd/system -name 'hsperfguard*' | tr '\n' ' ')" ""
  check "$1: dangling links in /etc/systemd/system" "$(inside find /etc/systemd/system -xtype l | tr '\n' ' ')" ""
  check "$1: the package's and the tool's files" \
    "$(inside sh -c 'ls -d /usr/bin/hsperfguard /usr/lib/systemd/system/hsperfguard-* /lib/systemd/system/hsperfguard-* /var/lib/hsperfguard /var/log/hsperfguard /etc/hsperfguard 2>/dev/null | tr "\n" " "')" ""
}

# purge_with_timers_enabled RELEASE WHICH: the timers are enabled, apt-get purge succeeds, and
# nothing of the package is left (check_left); WHICH names the purge in the checks.
purge_with_timers_enabled() {
  local release=$1 which=$2 out rc
  check "$release: timers before the $which purge" \
    "$(inside systemctl is-enabled hsperfguard-reap.timer hsperfguard-audit.timer | tr '\n' ' ')" "enabled enabled "
  out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y hsperfguard 2>&1) && rc=0 || rc=$?
  check "$release: the $which apt-get purge exit status" "$rc" 0
  [ "$rc" = 0 ] || printf '%s\n' "$out" | tail -n 20
  check_left "$release: after the $which purge"
}

for release in "${releases[@]}"; do
  field "$release"
done

step "clean up"
cleanup
trap - EXIT
echo "exposure (systemd-analyze security):"
for release in "${releases[@]}"; do
  reap_var=score_${release}_reap audit_var=score_${release}_audit
  echo "  $release: reap ${!reap_var:-?}, audit ${!audit_var:-?}"
done
echo "field: $failures check(s) failed; $((SECONDS - started)) s"
[ "$failures" = 0 ]
