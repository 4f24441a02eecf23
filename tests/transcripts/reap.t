The reaper on the scratch host (setup.sh, make_host) beside a live JDK 17 JVM: its plan,
then the removals, then what is left. The files were changed (ctime) moments ago, so the
default --min-age keeps them all; --min-age 0 plans as an old host would.

  $ . "$TESTDIR/setup.sh"
  $ start_jvm 300 "$JAVA17"
  $ make_host
  $ mkdir -m 0700 /tmp/run
  $ lock=(--lock-file /tmp/run/reap.lock)

  $ hsperfguard reap --no-containers "${lock[@]}" --dry-run
  reap plan (dry run, nothing is changed)
  temp dir /tmp (this host's)
    /tmp/hsperfdata_daemon  (acting as 1:1)
      skip    90006  stale: pid 90006 no longer exists; skipped: it has other hard links: a person decides
      skip    90007  stale: pid 90007 no longer exists; skipped: it has other hard links: a person decides
    /tmp/hsperfdata_nobody  (acting as 65534:65534)
      skip    90008  stale: pid 90008 no longer exists; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
    /tmp/hsperfdata_root  (acting as 0:0)
      keep    300  live: its lock is held by pid 300 (proc-locks); kept: a live JVM's
      skip    500  pid reused: pid 500 started 259200000 ms after the VM that wrote this file began: it is another process; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
      skip    90001  stale: pid 90001 no longer exists; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
      skip    90002  stale: pid 90002 no longer exists; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
      skip    90003  stale: pid 90003 no longer exists; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
      skip    90004  foreign: a fifo is never a JVM's backing file; skipped: a FIFO, socket or device is removed only with --include-special
      skip    90005  foreign: a symlink is never a JVM's backing file; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
      skip    notapid  foreign: the name is not a pid: no JVM writes it; skipped: changed [0-9.]+ s ago \(the later of its mtime and ctime\), younger than --min-age 60\.0 s (re)
    attach files in /tmp
      skip    .java_pid90009  foreign: a regular where the JVM puts a socket; skipped: its kind is not known
  
  plan: 12 item(s): 0 to remove, 1 to keep, 11 skipped
  $ hsperfguard reap --no-containers "${lock[@]}" --dry-run --min-age 0
  reap plan (dry run, nothing is changed)
  temp dir /tmp (this host's)
    /tmp/hsperfdata_daemon  (acting as 1:1)
      skip    90006  stale: pid 90006 no longer exists; skipped: it has other hard links: a person decides
      skip    90007  stale: pid 90007 no longer exists; skipped: it has other hard links: a person decides
    /tmp/hsperfdata_nobody  (acting as 65534:65534)
      remove  90008  stale: pid 90008 no longer exists
    /tmp/hsperfdata_root  (acting as 0:0)
      keep    300  live: its lock is held by pid 300 (proc-locks); kept: a live JVM's
      remove  500  pid reused: pid 500 started 259200000 ms after the VM that wrote this file began: it is another process
      remove  90001  stale: pid 90001 no longer exists
      remove  90002  stale: pid 90002 no longer exists
      remove  90003  stale: pid 90003 no longer exists
      skip    90004  foreign: a fifo is never a JVM's backing file; skipped: a FIFO, socket or device is removed only with --include-special
      remove  90005  foreign: a symlink is never a JVM's backing file
      remove  notapid  foreign: the name is not a pid: no JVM writes it
    attach files in /tmp
      skip    .java_pid90009  foreign: a regular where the JVM puts a socket; skipped: its kind is not known
  
  plan: 12 item(s): 7 to remove, 1 to keep, 4 skipped
  $ hsperfguard reap --no-containers "${lock[@]}" --dry-run --min-age 0 --verbose
  reap plan (dry run, nothing is changed)
  temp dir /tmp (this host's)
    /tmp/hsperfdata_daemon  (acting as 1:1)
      skip    90006  stale: pid 90006 no longer exists; skipped: it has other hard links: a person decides
      skip    90007  stale: pid 90007 no longer exists; skipped: it has other hard links: a person decides
    /tmp/hsperfdata_nobody  (acting as 65534:65534)
      remove  90008  stale: pid 90008 no longer exists
    /tmp/hsperfdata_root  (acting as 0:0)
      keep    300  live: its lock is held by pid 300 (proc-locks); kept: a live JVM's
      remove  500  pid reused: pid 500 started 259200000 ms after the VM that wrote this file began: it is another process
      remove  90001  stale: pid 90001 no longer exists
      remove  90002  stale: pid 90002 no longer exists
      remove  90003  stale: pid 90003 no longer exists
      skip    90004  foreign: a fifo is never a JVM's backing file; skipped: a FIFO, socket or device is removed only with --include-special
      remove  90005  foreign: a symlink is never a JVM's backing file
      remove  notapid  foreign: the name is not a pid: no JVM writes it
    attach files in /tmp
      skip    .java_pid90009  foreign: a regular where the JVM puts a socket; skipped: its kind is not known
  
  plan: 12 item(s): 7 to remove, 1 to keep, 4 skipped
  $ hsperfguard reap --no-containers "${lock[@]}" --dry-run --min-age 0 --include-special --remove-empty-namespaces --format json | jq -c '[.plan[] | {path, action}]'
  [{"path":"/tmp/hsperfdata_daemon/90006","action":"skip"},{"path":"/tmp/hsperfdata_daemon/90007","action":"skip"},{"path":"/tmp/hsperfdata_nobody/90008","action":"remove"},{"path":"/tmp/hsperfdata_nosuchuser","action":"remove"},{"path":"/tmp/hsperfdata_root/300","action":"keep"},{"path":"/tmp/hsperfdata_root/500","action":"remove"},{"path":"/tmp/hsperfdata_root/90001","action":"remove"},{"path":"/tmp/hsperfdata_root/90002","action":"remove"},{"path":"/tmp/hsperfdata_root/90003","action":"remove"},{"path":"/tmp/hsperfdata_root/90004","action":"remove"},{"path":"/tmp/hsperfdata_root/90005","action":"remove"},{"path":"/tmp/hsperfdata_root/notapid","action":"remove"},{"path":"/tmp/.java_pid90009","action":"skip"}]

The removals, journaled:

  $ hsperfguard reap --no-containers "${lock[@]}" --min-age 0 --journal /tmp/run/journal
  reap plan
  temp dir /tmp (this host's)
    /tmp/hsperfdata_daemon  (acting as 1:1)
      skip    90006  stale: pid 90006 no longer exists; skipped: it has other hard links: a person decides
      skip    90007  stale: pid 90007 no longer exists; skipped: it has other hard links: a person decides
    /tmp/hsperfdata_nobody  (acting as 65534:65534)
      remove  90008  stale: pid 90008 no longer exists
    /tmp/hsperfdata_root  (acting as 0:0)
      keep    300  live: its lock is held by pid 300 (proc-locks); kept: a live JVM's
      remove  500  pid reused: pid 500 started 259200000 ms after the VM that wrote this file began: it is another process
      remove  90001  stale: pid 90001 no longer exists
      remove  90002  stale: pid 90002 no longer exists
      remove  90003  stale: pid 90003 no longer exists
      skip    90004  foreign: a fifo is never a JVM's backing file; skipped: a FIFO, socket or device is removed only with --include-special
      remove  90005  foreign: a symlink is never a JVM's backing file
      remove  notapid  foreign: the name is not a pid: no JVM writes it
    attach files in /tmp
      skip    .java_pid90009  foreign: a regular where the JVM puts a socket; skipped: its kind is not known
  
  plan: 12 item(s): 7 to remove, 1 to keep, 4 skipped
  
  actions:
    removed       /tmp/hsperfdata_nobody/90008
    removed       /tmp/hsperfdata_root/500
    removed       /tmp/hsperfdata_root/90001
    removed       /tmp/hsperfdata_root/90002
    removed       /tmp/hsperfdata_root/90003
    removed       /tmp/hsperfdata_root/90005
    removed       /tmp/hsperfdata_root/notapid
  
  done: 7 removed, 0 vanished, 0 became live, 0 changed, 0 failed, 0 not attempted
  $ jq -r '"\(.event) \(.path // "")"' /tmp/run/journal | sort -s -k2,2
  start 
  start 
  finish 
  unlinking /tmp/hsperfdata_nobody/90008
  outcome /tmp/hsperfdata_nobody/90008
  unlinking /tmp/hsperfdata_root/500
  outcome /tmp/hsperfdata_root/500
  unlinking /tmp/hsperfdata_root/90001
  outcome /tmp/hsperfdata_root/90001
  unlinking /tmp/hsperfdata_root/90002
  outcome /tmp/hsperfdata_root/90002
  unlinking /tmp/hsperfdata_root/90003
  outcome /tmp/hsperfdata_root/90003
  unlinking /tmp/hsperfdata_root/90005
  outcome /tmp/hsperfdata_root/90005
  unlinking /tmp/hsperfdata_root/notapid
  outcome /tmp/hsperfdata_root/notapid
  $ find /tmp/hsperfdata_* /tmp/.java_pid* | sort
  /tmp/.java_pid90009
  /tmp/hsperfdata_daemon
  /tmp/hsperfdata_daemon/90006
  /tmp/hsperfdata_daemon/90007
  /tmp/hsperfdata_nobody
  /tmp/hsperfdata_nosuchuser
  /tmp/hsperfdata_root
  /tmp/hsperfdata_root/300
  /tmp/hsperfdata_root/90004
  $ hsperfguard reap --no-containers "${lock[@]}" --min-age 0 --include-special --remove-empty-namespaces
  reap plan
  temp dir /tmp (this host's)
    /tmp/hsperfdata_daemon  (acting as 1:1)
      skip    90006  stale: pid 90006 no longer exists; skipped: it has other hard links: a person decides
      skip    90007  stale: pid 90007 no longer exists; skipped: it has other hard links: a person decides
    /tmp/hsperfdata_nosuchuser  (acting as 0:0)
      remove  /tmp/hsperfdata_nosuchuser  stale: no user 'nosuchuser' exists: no JVM can use this directory
    /tmp/hsperfdata_root  (acting as 0:0)
      keep    300  live: its lock is held by pid 300 (proc-locks); kept: a live JVM's
      remove  90004  foreign: a fifo is never a JVM's backing file
    attach files in /tmp
      skip    .java_pid90009  foreign: a regular where the JVM puts a socket; skipped: its kind is not known
  
  plan: 6 item(s): 2 to remove, 1 to keep, 3 skipped
  
  actions:
    removed       /tmp/hsperfdata_nosuchuser
    removed       /tmp/hsperfdata_root/90004
  
  done: 2 removed, 0 vanished, 0 became live, 0 changed, 0 failed, 0 not attempted
  $ find /tmp/hsperfdata_* | sort
  /tmp/hsperfdata_daemon
  /tmp/hsperfdata_daemon/90006
  /tmp/hsperfdata_daemon/90007
  /tmp/hsperfdata_nobody
  /tmp/hsperfdata_root
  /tmp/hsperfdata_root/300

Nothing left to do, and the live JVM's file is still there:

  $ hsperfguard reap --no-containers "${lock[@]}" --min-age 0 --quiet
  $ ls /tmp/hsperfdata_root
  300
  $ stop_all
  $ ls /tmp/hsperfdata_root
