An audit of a scratch host: a JDK 17 JVM of root and a JDK 25 JVM of nobody, live; stale,
foreign, pid-reused and truncated files, a FIFO, a symbolic link, a hard-linked pair of 0666
in a namespace of 0777, a namespace of a user that does not exist, a stale attach file
(setup.sh, make_host).

  $ . "$TESTDIR/setup.sh"
  $ start_jvm 300 "$JAVA17"
  $ start_jvm 400 "$JAVA25" nobody
  $ make_host

The report a person reads, then the one a scanner reads:

  $ hsperfguard audit --no-containers
  temp dir /tmp (this host's)
    [high] attach.socket-unsafe /tmp/.java_pid90009: attach listener /tmp/.java_pid90009 is not what a JVM creates: it is a regular file, not a socket; mode 0644 instead of 0600
        fix: Remove the entry if the JVM of that pid did not create it and find out who did; then attach again, and restart the JVM if it can no longer be attached.
    [high] file.hard-link (Backing file has more than one hard link): 2 files in /tmp/hsperfdata_daemon: 90006, 90007 (--verbose lists each with its evidence)
        the first: backing file /tmp/hsperfdata_daemon/90006 has 2 hard links; HotSpot and its readers refuse it
        fix, for each of the 2 (<path> its path): Do not open or truncate the file. Find the other names (`find / -xdev -samefile <path>`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
    [high] file.mode (Backing file is accessible to group or others): 2 files in /tmp/hsperfdata_daemon: 90006, 90007 (--verbose lists each with its evidence)
        the first: backing file /tmp/hsperfdata_daemon/90006 has mode 0666: group or others can access the JVM's counters (command line, system properties)
        fix: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
    [high] file.mode /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 has mode 0644: group or others can access the JVM's counters (command line, system properties)
        fix: `setpriv --reuid=65534 --regid=65534 --clear-groups -- chmod 0600 /tmp/hsperfdata_nobody/90008`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
        or run: hsperfguard repair (it fixes this finding)
    [high] file.mode (Backing file is accessible to group or others): 3 files in /tmp/hsperfdata_root: 500, 90001, 90002 (--verbose lists each with its evidence)
        the first: backing file /tmp/hsperfdata_root/500 has mode 0644: group or others can access the JVM's counters (command line, system properties)
        fix, for each of the 3 (<path> its path): `chmod 0600 <path>`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
        or run: hsperfguard repair (it fixes these 3 findings)
    [high] file.mode /tmp/hsperfdata_root/90003: backing file /tmp/hsperfdata_root/90003 has mode 0644: group or others can access the JVM's counters (command line, system properties)
        fix: Not to be changed in place, by repair or by hand: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
    [high] file.owner-mismatch /tmp/hsperfdata_root/90003: namespace entry /tmp/hsperfdata_root/90003 is owned by uid 65534, not by the namespace owner (uid 0)
        fix: Treat the entry as hostile: do not read it with privileged tools, and do not chown it (a root-owned entry proves nothing about who put it there: a user can rename a root-owned file from any directory she can write on the same file system into her namespace). Remove it once no live JVM maps it and find out how its owner could write to the namespace. `hsperfguard repair` never changes an owner.
    [high] file.symlink /tmp/hsperfdata_root/90005: namespace entry /tmp/hsperfdata_root/90005 is a symbolic link; no JVM creates one, and following it acts on another file
        fix: Remove the link itself (`unlink`, never following it) and find out who created it: only the namespace owner or root can, unless the namespace is writable by others.
    [high] namespace.group-other-writable /tmp/hsperfdata_daemon: namespace /tmp/hsperfdata_daemon is writable by group and others (mode 0777); HotSpot refuses it
        fix: Remove the write bits: `setpriv --reuid=1 --regid=1 --clear-groups -- chmod go-w /tmp/hsperfdata_daemon` (HotSpot creates it 0755). Then check the files inside for planted entries: rerun the audit.
        or run: hsperfguard repair (it fixes this finding)
    [medium] file.bad-prologue /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 is not a valid PerfData region: used 12320 outside [32, 100] at offset 8
        fix: Inspect it with `hsperfguard inspect /tmp/hsperfdata_nobody/90008` (the evidence gives the offset and reason of the first error); remove it if no live process maps it.
    [medium] file.bad-size /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 has size 100: not a multiple of the 4096-byte page
        fix: If no live process maps the file, remove it (`hsperfguard reap`); otherwise check free space in the temp dir and who wrote the file.
    [medium] file.not-regular /tmp/hsperfdata_root/90004: backing file /tmp/hsperfdata_root/90004 is a FIFO, not a regular file
        fix: Remove the entry once you have checked what it is (`hsperfguard reap` removes what is provably not a live JVM's file); find out who created it.
    [medium] file.pid-reused /tmp/hsperfdata_root/500: pid 500 started 259200000 ms after the VM that wrote this file began: it is another process
        fix: Run `hsperfguard reap`; it removes the file only while its lock is free and the evidence still holds.
    [medium] namespace.unknown-user /tmp/hsperfdata_nosuchuser: namespace /tmp/hsperfdata_nosuchuser names user nosuchuser, who does not exist on this system: squatted or orphaned (owned by uid 0)
        fix: Check the owner in the evidence. Remove an orphaned namespace after checking that no process uses its files; remove a squatted one and find out who created it.
    [low] attach.stale /tmp/.java_pid90009: attach file /tmp/.java_pid90009 belongs to pid 90009, which no longer exists in any pid namespace using this temp dir
        fix: Remove the file once you have confirmed that the pid is gone (the evidence shows how this was decided).
    [low] file.foreign-name /tmp/hsperfdata_root/notapid: namespace entry /tmp/hsperfdata_root/notapid is not named after a pid (a regular file)
        fix: Check what the entry is (owner and kind are in the evidence) and remove it; `hsperfguard reap` removes foreign entries that are safe to remove.
    [low] file.stale (Backing file of a JVM that is gone): 6 files in 3 namespaces, the first 3 by name: /tmp/hsperfdata_daemon/90006, /tmp/hsperfdata_daemon/90007, /tmp/hsperfdata_nobody/90008 (--verbose lists each with its evidence)
        the first: pid 90006 no longer exists
        fix: Run `hsperfguard reap` (from the timer or cron job), which removes it only after re-checking the same evidence, holding the file's lock across the unlink as the JVM does.
    4 namespace(s) in /tmp, 4 with findings or errors
  
  summary
    findings  26 finding(s): 13 high, 5 medium, 8 low
    errors    none
    next      hsperfguard repair --dry-run   shows how it would fix 5 repairable finding(s); without --dry-run it fixes them
              hsperfguard reap --dry-run   shows why the reaper keeps 10 stale or foreign file(s)
              hsperfguard rules show attach.socket-unsafe   what the worst finding means and how to fix it
              hsperfguard audit --verbose   every finding with its evidence
  4 namespace(s), 12 file(s), 1 attach file(s) in 1 temp dir, 2 JVM process(es) looked at; FAIL: 18 finding(s) at or above --fail-on medium (exit 1)
  [1]
  $ hsperfguard audit --no-containers --format json | jq -c '.summary'
  {"by_rule":{"attach.socket-unsafe":1,"attach.stale":1,"file.bad-prologue":1,"file.bad-size":1,"file.foreign-name":1,"file.hard-link":2,"file.mode":7,"file.not-regular":1,"file.owner-mismatch":1,"file.pid-reused":1,"file.stale":6,"file.symlink":1,"namespace.group-other-writable":1,"namespace.unknown-user":1},"by_severity":{"critical":0,"high":13,"info":0,"low":8,"medium":5},"errors":0,"files":12,"files_by_verdict":{"foreign":3,"live":2,"pid-reused":1,"stale":6},"findings":26,"highest_severity":"high","namespaces":4,"roots":1}
  [1]
  $ hsperfguard audit --no-containers --format json | jq -f "$TESTDIR/../../schemas/report-3-to-2.jq" | jq -f "$TESTDIR/../../schemas/report-2-to-1.jq" | jq -r '.. | objects | select(has("rule") and has("severity")) | "\(.severity) \(.rule) \(.path)"'
  high file.hard-link /tmp/hsperfdata_daemon/90006
  high file.mode /tmp/hsperfdata_daemon/90006
  low file.stale /tmp/hsperfdata_daemon/90006
  high file.hard-link /tmp/hsperfdata_daemon/90007
  high file.mode /tmp/hsperfdata_daemon/90007
  low file.stale /tmp/hsperfdata_daemon/90007
  high namespace.group-other-writable /tmp/hsperfdata_daemon
  high file.mode /tmp/hsperfdata_nobody/90008
  medium file.bad-size /tmp/hsperfdata_nobody/90008
  medium file.bad-prologue /tmp/hsperfdata_nobody/90008
  low file.stale /tmp/hsperfdata_nobody/90008
  medium namespace.unknown-user /tmp/hsperfdata_nosuchuser
  high file.mode /tmp/hsperfdata_root/500
  medium file.pid-reused /tmp/hsperfdata_root/500
  high file.mode /tmp/hsperfdata_root/90001
  low file.stale /tmp/hsperfdata_root/90001
  high file.mode /tmp/hsperfdata_root/90002
  low file.stale /tmp/hsperfdata_root/90002
  high file.owner-mismatch /tmp/hsperfdata_root/90003
  high file.mode /tmp/hsperfdata_root/90003
  low file.stale /tmp/hsperfdata_root/90003
  medium file.not-regular /tmp/hsperfdata_root/90004
  high file.symlink /tmp/hsperfdata_root/90005
  low file.foreign-name /tmp/hsperfdata_root/notapid
  high attach.socket-unsafe /tmp/.java_pid90009
  low attach.stale /tmp/.java_pid90009
  [1]
  $ hsperfguard audit --no-containers --format json > report.json
  [1]
  $ jq -r '.namespaces[].files[] | .name as $n | .findings[] | select(has("evidence") | not) | "\($n) \(.rule)"' report.json
  90006 file.stale
  90007 file.stale
  90008 file.bad-prologue
  90008 file.stale
  500 file.pid-reused
  90001 file.stale
  90002 file.stale
  90003 file.stale
  $ jq -f "$TESTDIR/../../schemas/report-3-to-2.jq" report.json | jq -r '.namespaces[].files[] | .name as $n | .findings[] | select(.rule == "file.pid-reused" or .rule == "file.bad-prologue") | "\($n) \(.rule) \(.evidence | tojson)"'
  90008 file.bad-prologue {"bytes_read":100,"entries_decoded":0,"offset":8,"prologue":{"accessible":1,"byte_order":"little","entry_offset":32,"magic":3405693120,"major_version":2,"minor_version":0,"mod_time_stamp":65010108,"num_entries":187,"overflow":0,"used":12320},"reason":"used 12320 outside [32, 100]","region_size":100,"walk_end":0}
  500 file\.pid-reused \{"decided_by":"start-time","decided_by_pid":500,"lock":"free","vm_begin_time_ms":[0-9]+,"verdict":"pid-reused","reason":"started-after-vm-begin"\} (re)
  $ hsperfguard audit --no-containers --format json | jq -c '{complete, fail_on, profile}'
  {"complete":true,"fail_on":"medium","profile":"default"}
  [1]

What --fail-on, --quiet, --profile and a policy change:

  $ hsperfguard audit --no-containers --fail-on critical --quiet
  $ hsperfguard audit --no-containers --quiet
  high namespace.group-other-writable /tmp/hsperfdata_daemon: namespace /tmp/hsperfdata_daemon is writable by group and others (mode 0777); HotSpot refuses it; fix: Remove the write bits: `setpriv --reuid=1 --regid=1 --clear-groups -- chmod go-w /tmp/hsperfdata_daemon` (HotSpot creates it 0755). Then check the files inside for planted entries: rerun the audit.
  high file.hard-link /tmp/hsperfdata_daemon/90006: backing file /tmp/hsperfdata_daemon/90006 has 2 hard links; HotSpot and its readers refuse it; fix: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90006`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  high file.mode /tmp/hsperfdata_daemon/90006: backing file /tmp/hsperfdata_daemon/90006 has mode 0666: group or others can access the JVM's counters (command line, system properties); fix: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  high file.hard-link /tmp/hsperfdata_daemon/90007: backing file /tmp/hsperfdata_daemon/90007 has 2 hard links; HotSpot and its readers refuse it; fix: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90007`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  high file.mode /tmp/hsperfdata_daemon/90007: backing file /tmp/hsperfdata_daemon/90007 has mode 0666: group or others can access the JVM's counters (command line, system properties); fix: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  high file.mode /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 has mode 0644: group or others can access the JVM's counters (command line, system properties); fix: `setpriv --reuid=65534 --regid=65534 --clear-groups -- chmod 0600 /tmp/hsperfdata_nobody/90008`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
  medium file.bad-size /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 has size 100: not a multiple of the 4096-byte page; fix: If no live process maps the file, remove it (`hsperfguard reap`); otherwise check free space in the temp dir and who wrote the file.
  medium file.bad-prologue /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 is not a valid PerfData region: used 12320 outside [32, 100] at offset 8; fix: Inspect it with `hsperfguard inspect /tmp/hsperfdata_nobody/90008` (the evidence gives the offset and reason of the first error); remove it if no live process maps it.
  medium namespace.unknown-user /tmp/hsperfdata_nosuchuser: namespace /tmp/hsperfdata_nosuchuser names user nosuchuser, who does not exist on this system: squatted or orphaned (owned by uid 0); fix: Check the owner in the evidence. Remove an orphaned namespace after checking that no process uses its files; remove a squatted one and find out who created it.
  high file.mode /tmp/hsperfdata_root/500: backing file /tmp/hsperfdata_root/500 has mode 0644: group or others can access the JVM's counters (command line, system properties); fix: `chmod 0600 /tmp/hsperfdata_root/500`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
  medium file.pid-reused /tmp/hsperfdata_root/500: pid 500 started 259200000 ms after the VM that wrote this file began: it is another process; fix: Run `hsperfguard reap`; it removes the file only while its lock is free and the evidence still holds.
  high file.mode /tmp/hsperfdata_root/90001: backing file /tmp/hsperfdata_root/90001 has mode 0644: group or others can access the JVM's counters (command line, system properties); fix: `chmod 0600 /tmp/hsperfdata_root/90001`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
  high file.mode /tmp/hsperfdata_root/90002: backing file /tmp/hsperfdata_root/90002 has mode 0644: group or others can access the JVM's counters (command line, system properties); fix: `chmod 0600 /tmp/hsperfdata_root/90002`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
  high file.owner-mismatch /tmp/hsperfdata_root/90003: namespace entry /tmp/hsperfdata_root/90003 is owned by uid 65534, not by the namespace owner (uid 0); fix: Treat the entry as hostile: do not read it with privileged tools, and do not chown it (a root-owned entry proves nothing about who put it there: a user can rename a root-owned file from any directory she can write on the same file system into her namespace). Remove it once no live JVM maps it and find out how its owner could write to the namespace. `hsperfguard repair` never changes an owner.
  high file.mode /tmp/hsperfdata_root/90003: backing file /tmp/hsperfdata_root/90003 has mode 0644: group or others can access the JVM's counters (command line, system properties); fix: Not to be changed in place, by repair or by hand: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  medium file.not-regular /tmp/hsperfdata_root/90004: backing file /tmp/hsperfdata_root/90004 is a FIFO, not a regular file; fix: Remove the entry once you have checked what it is (`hsperfguard reap` removes what is provably not a live JVM's file); find out who created it.
  high file.symlink /tmp/hsperfdata_root/90005: namespace entry /tmp/hsperfdata_root/90005 is a symbolic link; no JVM creates one, and following it acts on another file; fix: Remove the link itself (`unlink`, never following it) and find out who created it: only the namespace owner or root can, unless the namespace is writable by others.
  high attach.socket-unsafe /tmp/.java_pid90009: attach listener /tmp/.java_pid90009 is not what a JVM creates: it is a regular file, not a socket; mode 0644 instead of 0600; fix: Remove the entry if the JVM of that pid did not create it and find out who did; then attach again, and restart the JVM if it can no longer be attached.
  [1]
  $ hsperfguard audit --no-containers --profile hotspot --format json | jq -c '.summary'
  {"by_rule":{"attach.socket-unsafe":1,"file.bad-prologue":1,"file.bad-size":1,"file.hard-link":2,"file.not-regular":1,"file.symlink":1,"namespace.group-other-writable":1},"by_severity":{"critical":0,"high":5,"info":0,"low":0,"medium":3},"errors":0,"files":12,"files_by_verdict":{"foreign":3,"live":2,"pid-reused":1,"stale":6},"findings":8,"highest_severity":"high","namespaces":4,"roots":1}
  [1]
  $ hsperfguard audit --no-containers --profile strict --format json | jq -c '.summary'
  {"by_rule":{"attach.socket-unsafe":1,"attach.stale":1,"file.bad-prologue":1,"file.bad-size":1,"file.foreign-name":1,"file.hard-link":2,"file.mode":7,"file.not-regular":1,"file.owner-mismatch":1,"file.pid-reused":1,"file.stale":6,"file.symlink":1,"namespace.group-other-writable":1,"namespace.not-private":3,"namespace.unknown-user":1},"by_severity":{"critical":3,"high":11,"info":0,"low":6,"medium":9},"errors":0,"files":12,"files_by_verdict":{"foreign":3,"live":2,"pid-reused":1,"stale":6},"findings":29,"highest_severity":"critical","namespaces":4,"roots":1}
  [1]
  $ printf '{"rules": {"file.stale": {"enabled": false}, "file.mode": {"severity": "low"}}}' >/tmp/policy.json
  $ hsperfguard audit --no-containers --policy /tmp/policy.json --format json | jq -c '.summary'
  {"by_rule":{"attach.socket-unsafe":1,"attach.stale":1,"file.bad-prologue":1,"file.bad-size":1,"file.foreign-name":1,"file.hard-link":2,"file.mode":7,"file.not-regular":1,"file.owner-mismatch":1,"file.pid-reused":1,"file.symlink":1,"namespace.group-other-writable":1,"namespace.unknown-user":1},"by_severity":{"critical":0,"high":6,"info":0,"low":9,"medium":5},"errors":0,"files":12,"files_by_verdict":{"foreign":3,"live":2,"pid-reused":1,"stale":6},"findings":20,"highest_severity":"high","namespaces":4,"roots":1}
  [1]

One namespace at a time, in full:

  $ mkdir -m 1777 /tmp/one && mv /tmp/hsperfdata_daemon /tmp/one/
  $ hsperfguard audit --tmpdir /tmp/one --verbose
  temp dir /tmp/one (named by --tmpdir)
    /tmp/one/hsperfdata_daemon  2 file(s)
      [high] file.hard-link 90006: backing file /tmp/one/hsperfdata_daemon/90006 has 2 hard links; HotSpot and its readers refuse it
          evidence:
            dev: [0-9]+ (re)
            ino: [0-9]+ (re)
            nlink: 2
          fix: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/one/hsperfdata_daemon/90006`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
      [high] file.hard-link 90007: backing file /tmp/one/hsperfdata_daemon/90007 has 2 hard links; HotSpot and its readers refuse it
          evidence:
            dev: [0-9]+ (re)
            ino: [0-9]+ (re)
            nlink: 2
          fix: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/one/hsperfdata_daemon/90007`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
      [high] file.mode 90006: backing file /tmp/one/hsperfdata_daemon/90006 has mode 0666: group or others can access the JVM's counters (command line, system properties)
          evidence:
            expected_mode: 0600
            group_readable: true
            group_writable: true
            mode: 0666
            mode_numeric: 438
            other_readable: true
            other_writable: true
          fix: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
      [high] file.mode 90007: backing file /tmp/one/hsperfdata_daemon/90007 has mode 0666: group or others can access the JVM's counters (command line, system properties)
          evidence:
            expected_mode: 0600
            group_readable: true
            group_writable: true
            mode: 0666
            mode_numeric: 438
            other_readable: true
            other_writable: true
          fix: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
      [high] namespace.group-other-writable: namespace /tmp/one/hsperfdata_daemon is writable by group and others (mode 0777); HotSpot refuses it
          evidence:
            group_writable: true
            mode: 0777
            mode_numeric: 511
            other_writable: true
            owner_uid: 1
            source: fstat
            sticky: false
          fix: Remove the write bits: `setpriv --reuid=1 --regid=1 --clear-groups -- chmod go-w /tmp/one/hsperfdata_daemon` (HotSpot creates it 0755). Then check the files inside for planted entries: rerun the audit.
          or run: hsperfguard repair --tmpdir /tmp/one (it fixes this finding)
      [low] file.stale 90006: pid 90006 no longer exists
          evidence:
            decided_by: process
            decided_by_pid: 90006
            lock: free
            reason: process-gone
            verdict: stale
            vm_begin_time_ms: [0-9]+ (re)
          fix: Run `hsperfguard reap --tmpdir /tmp/one` (from the timer or cron job), which removes it only after re-checking the same evidence, holding the file's lock across the unlink as the JVM does.
      [low] file.stale 90007: pid 90007 no longer exists
          evidence:
            decided_by: process
            decided_by_pid: 90007
            lock: free
            reason: process-gone
            verdict: stale
            vm_begin_time_ms: [0-9]+ (re)
          fix: Run `hsperfguard reap --tmpdir /tmp/one` (from the timer or cron job), which removes it only after re-checking the same evidence, holding the file's lock across the unlink as the JVM does.
    1 namespace(s) in /tmp/one
  
  summary
    findings  7 finding(s): 5 high, 2 low
    errors    none
    next      hsperfguard repair --dry-run --tmpdir /tmp/one   shows how it would fix 1 repairable finding(s); without --dry-run it fixes them
              hsperfguard reap --dry-run --tmpdir /tmp/one   shows why the reaper keeps 2 stale or foreign file(s)
              hsperfguard rules show file.hard-link   what the worst finding means and how to fix it
  1 namespace(s), 2 file(s), 0 attach file(s) in 1 temp dir, 2 JVM process(es) looked at; FAIL: 5 finding(s) at or above --fail-on medium (exit 1)
  [1]
  $ hsperfguard audit --tmpdir /tmp/one --output /tmp/one.json --format json
  [1]
  $ jq -c '.summary' /tmp/one.json
  {"by_rule":{"file.hard-link":2,"file.mode":2,"file.stale":2,"namespace.group-other-writable":1},"by_severity":{"critical":0,"high":5,"info":0,"low":2,"medium":0},"errors":0,"files":2,"files_by_verdict":{"stale":2},"findings":7,"highest_severity":"high","namespaces":1,"roots":1}

As a user other than root:

  $ setpriv --reuid=nobody --regid=nogroup --clear-groups "$HSPERFGUARD_BINARY" audit --no-containers
  temp dir /tmp (this host's)
    [high] attach.socket-unsafe /tmp/.java_pid90009: attach listener /tmp/.java_pid90009 is not what a JVM creates: it is a regular file, not a socket; mode 0644 instead of 0600
        fix: Remove the entry if the JVM of that pid did not create it and find out who did; then attach again, and restart the JVM if it can no longer be attached.
    [high] file.mode /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 has mode 0644: group or others can access the JVM's counters (command line, system properties)
        fix: `setpriv --reuid=65534 --regid=65534 --clear-groups -- chmod 0600 /tmp/hsperfdata_nobody/90008`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
        or run: hsperfguard repair (it fixes this finding)
    [high] file.mode (Backing file is accessible to group or others): 3 files in /tmp/hsperfdata_root: 500, 90001, 90002 (--verbose lists each with its evidence)
        the first: backing file /tmp/hsperfdata_root/500 has mode 0644: group or others can access the JVM's counters (command line, system properties)
        fix, for each of the 3 (<path> its path): `chmod 0600 <path>`; then find what created the file with a wider mode (a copy, a restore, a tool with a wide umask or a default ACL on the namespace).
        or run: hsperfguard repair (it fixes these 3 findings)
    [high] file.mode /tmp/hsperfdata_root/90003: backing file /tmp/hsperfdata_root/90003 has mode 0644: group or others can access the JVM's counters (command line, system properties)
        fix: Not to be changed in place, by repair or by hand: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
    [high] file.owner-mismatch /tmp/hsperfdata_root/90003: namespace entry /tmp/hsperfdata_root/90003 is owned by uid 65534, not by the namespace owner (uid 0)
        fix: Treat the entry as hostile: do not read it with privileged tools, and do not chown it (a root-owned entry proves nothing about who put it there: a user can rename a root-owned file from any directory she can write on the same file system into her namespace). Remove it once no live JVM maps it and find out how its owner could write to the namespace. `hsperfguard repair` never changes an owner.
    [high] file.symlink /tmp/hsperfdata_root/90005: namespace entry /tmp/hsperfdata_root/90005 is a symbolic link; no JVM creates one, and following it acts on another file
        fix: Remove the link itself (`unlink`, never following it) and find out who created it: only the namespace owner or root can, unless the namespace is writable by others.
    [medium] file.bad-prologue /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 is not a valid PerfData region: used 12320 outside [32, 100] at offset 8
        fix: Inspect it with `hsperfguard inspect /tmp/hsperfdata_nobody/90008` (the evidence gives the offset and reason of the first error); remove it if no live process maps it.
    [medium] file.bad-size /tmp/hsperfdata_nobody/90008: backing file /tmp/hsperfdata_nobody/90008 has size 100: not a multiple of the 4096-byte page
        fix: If no live process maps the file, remove it (`hsperfguard reap`); otherwise check free space in the temp dir and who wrote the file.
    [medium] file.not-regular /tmp/hsperfdata_root/90004: backing file /tmp/hsperfdata_root/90004 is a FIFO, not a regular file
        fix: Remove the entry once you have checked what it is (`hsperfguard reap` removes what is provably not a live JVM's file); find out who created it.
    [medium] namespace.unknown-user /tmp/hsperfdata_nosuchuser: namespace /tmp/hsperfdata_nosuchuser names user nosuchuser, who does not exist on this system: squatted or orphaned (owned by uid 0)
        fix: Check the owner in the evidence. Remove an orphaned namespace after checking that no process uses its files; remove a squatted one and find out who created it.
    [low] attach.stale /tmp/.java_pid90009: attach file /tmp/.java_pid90009 belongs to pid 90009, which no longer exists in any pid namespace using this temp dir
        fix: Remove the file once you have confirmed that the pid is gone (the evidence shows how this was decided).
    [low] file.foreign-name /tmp/hsperfdata_root/notapid: namespace entry /tmp/hsperfdata_root/notapid is not named after a pid (a regular file)
        fix: Check what the entry is (owner and kind are in the evidence) and remove it; `hsperfguard reap` removes foreign entries that are safe to remove.
    [low] file.observation-error /tmp/hsperfdata_root/300: namespace entry /tmp/hsperfdata_root/300 could not be observed completely (1 error, first: openat: Permission denied)
        fix: Read the errors in the evidence, run the audit as root or as the namespace user, and audit again.
    [low] file.stale (Backing file of a JVM that is gone): 4 files in 2 namespaces, the first 3 by name: /tmp/hsperfdata_nobody/90008, /tmp/hsperfdata_root/90001, /tmp/hsperfdata_root/90002 (--verbose lists each with its evidence)
        the first: pid 90008 no longer exists
        fix: Run `hsperfguard reap` (from the timer or cron job), which removes it only after re-checking the same evidence, holding the file's lock across the unlink as the JVM does.
    error: /tmp/hsperfdata_root/300: openat: Permission denied
    3 namespace(s) in /tmp, 3 with findings or errors
  
  summary
    findings  19 finding(s): 8 high, 4 medium, 7 low
    errors    1 (what could not be observed); the first: /tmp/hsperfdata_root/300: openat: Permission denied
    next      hsperfguard repair --dry-run   shows how it would fix 4 repairable finding(s); without --dry-run it fixes them
              hsperfguard reap --dry-run   shows why the reaper keeps 7 stale or foreign file(s)
              hsperfguard rules show attach.socket-unsafe   what the worst finding means and how to fix it
              hsperfguard audit --verbose   every finding with its evidence
  3 namespace(s), 10 file(s), 1 attach file(s) in 1 temp dir, 1 JVM process(es) looked at; INCOMPLETE: not root: 1 entry unreadable: run as root, or --user NAME for your own namespaces only (exit 3); 12 finding(s) at or above --fail-on medium
  [3]

A clean host:

  $ stop_all
  $ rm -rf /tmp/hsperfdata_* /tmp/.java_pid* /tmp/one
  $ hsperfguard audit --no-containers
  temp dir /tmp (this host's)
    0 namespace(s) in /tmp
  
  summary
    findings  0 finding(s)
    errors    none
  0 namespace(s), 0 file(s), 0 attach file(s) in 1 temp dir, 0 JVM process(es) looked at; clean: no findings at or above medium (exit 0)
