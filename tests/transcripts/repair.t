Repair on the scratch host (setup.sh, make_host): what it would fix, what it leaves to a
person and why, then the fixes, and the audit afterwards.

  $ . "$TESTDIR/setup.sh"
  $ make_host

  $ hsperfguard repair --dry-run
  would fix  namespace.group-other-writable  /tmp/hsperfdata_daemon: mode 0777 -> 0755
  left  file.hard-link  /tmp/hsperfdata_daemon/90006 [high]: not repairable: needs a decision by a person
        manual remedy: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90006`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  left  file.mode  /tmp/hsperfdata_daemon/90006 [high]: the file has more than one hard link: changing it would change the other names too
        manual remedy: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.hard-link  /tmp/hsperfdata_daemon/90007 [high]: not repairable: needs a decision by a person
        manual remedy: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90007`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  left  file.mode  /tmp/hsperfdata_daemon/90007 [high]: the file has more than one hard link: changing it would change the other names too
        manual remedy: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  would fix  file.mode  /tmp/hsperfdata_nobody/90008: mode 0644 -> 0600
  left  file.bad-size  /tmp/hsperfdata_nobody/90008 [medium]: not repairable: needs a decision by a person
        manual remedy: If no live process maps the file, remove it (`hsperfguard reap`); otherwise check free space in the temp dir and who wrote the file.
  left  file.bad-prologue  /tmp/hsperfdata_nobody/90008 [medium]: not repairable: needs a decision by a person
        manual remedy: Inspect it with `hsperfguard inspect /tmp/hsperfdata_nobody/90008` (the evidence gives the offset and reason of the first error); remove it if no live process maps it.
  left  namespace.unknown-user  /tmp/hsperfdata_nosuchuser [medium]: the namespace names no known user (squatted or orphaned): its rightful owner is unknown
        manual remedy: Check the owner in the evidence. Remove an orphaned namespace after checking that no process uses its files; remove a squatted one and find out who created it.
  would fix  file.mode  /tmp/hsperfdata_root/500: mode 0644 -> 0600
  would fix  file.mode  /tmp/hsperfdata_root/90001: mode 0644 -> 0600
  would fix  file.mode  /tmp/hsperfdata_root/90002: mode 0644 -> 0600
  left  file.owner-mismatch  /tmp/hsperfdata_root/90003 [high]: not repairable: needs a decision by a person
        manual remedy: Treat the entry as hostile: do not read it with privileged tools, and do not chown it (a root-owned entry proves nothing about who put it there: a user can rename a root-owned file from any directory she can write on the same file system into her namespace). Remove it once no live JVM maps it and find out how its owner could write to the namespace. `hsperfguard repair` never changes an owner.
  left  file.mode  /tmp/hsperfdata_root/90003 [high]: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed
        manual remedy: Not to be changed in place, by repair or by hand: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.not-regular  /tmp/hsperfdata_root/90004 [medium]: not repairable: needs a decision by a person
        manual remedy: Remove the entry once you have checked what it is (`hsperfguard reap` removes what is provably not a live JVM's file); find out who created it.
  left  file.symlink  /tmp/hsperfdata_root/90005 [high]: not repairable: needs a decision by a person
        manual remedy: Remove the link itself (`unlink`, never following it) and find out who created it: only the namespace owner or root can, unless the namespace is writable by others.
  left  file.foreign-name  /tmp/hsperfdata_root/notapid [low]: not repairable: needs a decision by a person
        manual remedy: Check what the entry is (owner and kind are in the evidence) and remove it; `hsperfguard reap` removes foreign entries that are safe to remove.
  left  attach.socket-unsafe  /tmp/.java_pid90009 [high]: attach files are not changed by repair
        manual remedy: Remove the entry if the JVM of that pid did not create it and find out who did; then attach again, and restart the JVM if it can no longer be attached.
  repair: 5 would be fixed, 0 failed, 13 left to a person (`hsperfguard audit` shows them)
  exit 4: 12 findings at or above medium would be left to a person (repair does not fix them)
  [4]
  $ stat -c '%a %U %n' /tmp/hsperfdata_* /tmp/hsperfdata_root/* /tmp/hsperfdata_daemon/*
  777 daemon /tmp/hsperfdata_daemon
  700 nobody /tmp/hsperfdata_nobody
  755 root /tmp/hsperfdata_nosuchuser
  755 root /tmp/hsperfdata_root
  644 root /tmp/hsperfdata_root/500
  644 root /tmp/hsperfdata_root/90001
  644 root /tmp/hsperfdata_root/90002
  644 nobody /tmp/hsperfdata_root/90003
  644 root /tmp/hsperfdata_root/90004
  777 root /tmp/hsperfdata_root/90005
  644 root /tmp/hsperfdata_root/notapid
  666 daemon /tmp/hsperfdata_daemon/90006
  666 daemon /tmp/hsperfdata_daemon/90007
  $ hsperfguard repair
  fixed  namespace.group-other-writable  /tmp/hsperfdata_daemon: mode 0777 -> 0755
  left  file.hard-link  /tmp/hsperfdata_daemon/90006 [high]: not repairable: needs a decision by a person
        manual remedy: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90006`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  left  file.mode  /tmp/hsperfdata_daemon/90006 [high]: the file has more than one hard link: changing it would change the other names too
        manual remedy: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.hard-link  /tmp/hsperfdata_daemon/90007 [high]: not repairable: needs a decision by a person
        manual remedy: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90007`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  left  file.mode  /tmp/hsperfdata_daemon/90007 [high]: the file has more than one hard link: changing it would change the other names too
        manual remedy: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  fixed  file.mode  /tmp/hsperfdata_nobody/90008: mode 0644 -> 0600
  left  file.bad-size  /tmp/hsperfdata_nobody/90008 [medium]: not repairable: needs a decision by a person
        manual remedy: If no live process maps the file, remove it (`hsperfguard reap`); otherwise check free space in the temp dir and who wrote the file.
  left  file.bad-prologue  /tmp/hsperfdata_nobody/90008 [medium]: not repairable: needs a decision by a person
        manual remedy: Inspect it with `hsperfguard inspect /tmp/hsperfdata_nobody/90008` (the evidence gives the offset and reason of the first error); remove it if no live process maps it.
  left  namespace.unknown-user  /tmp/hsperfdata_nosuchuser [medium]: the namespace names no known user (squatted or orphaned): its rightful owner is unknown
        manual remedy: Check the owner in the evidence. Remove an orphaned namespace after checking that no process uses its files; remove a squatted one and find out who created it.
  fixed  file.mode  /tmp/hsperfdata_root/500: mode 0644 -> 0600
  fixed  file.mode  /tmp/hsperfdata_root/90001: mode 0644 -> 0600
  fixed  file.mode  /tmp/hsperfdata_root/90002: mode 0644 -> 0600
  left  file.owner-mismatch  /tmp/hsperfdata_root/90003 [high]: not repairable: needs a decision by a person
        manual remedy: Treat the entry as hostile: do not read it with privileged tools, and do not chown it (a root-owned entry proves nothing about who put it there: a user can rename a root-owned file from any directory she can write on the same file system into her namespace). Remove it once no live JVM maps it and find out how its owner could write to the namespace. `hsperfguard repair` never changes an owner.
  left  file.mode  /tmp/hsperfdata_root/90003 [high]: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed
        manual remedy: Not to be changed in place, by repair or by hand: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.not-regular  /tmp/hsperfdata_root/90004 [medium]: not repairable: needs a decision by a person
        manual remedy: Remove the entry once you have checked what it is (`hsperfguard reap` removes what is provably not a live JVM's file); find out who created it.
  left  file.symlink  /tmp/hsperfdata_root/90005 [high]: not repairable: needs a decision by a person
        manual remedy: Remove the link itself (`unlink`, never following it) and find out who created it: only the namespace owner or root can, unless the namespace is writable by others.
  left  file.foreign-name  /tmp/hsperfdata_root/notapid [low]: not repairable: needs a decision by a person
        manual remedy: Check what the entry is (owner and kind are in the evidence) and remove it; `hsperfguard reap` removes foreign entries that are safe to remove.
  left  attach.socket-unsafe  /tmp/.java_pid90009 [high]: attach files are not changed by repair
        manual remedy: Remove the entry if the JVM of that pid did not create it and find out who did; then attach again, and restart the JVM if it can no longer be attached.
  repair: 5 fixed, 0 failed, 13 left to a person (`hsperfguard audit` shows them)
  exit 4: 12 findings at or above medium are left to a person (repair does not fix them)
  [4]
  $ stat -c '%a %U %n' /tmp/hsperfdata_* /tmp/hsperfdata_root/* /tmp/hsperfdata_daemon/*
  755 daemon /tmp/hsperfdata_daemon
  700 nobody /tmp/hsperfdata_nobody
  755 root /tmp/hsperfdata_nosuchuser
  755 root /tmp/hsperfdata_root
  600 root /tmp/hsperfdata_root/500
  600 root /tmp/hsperfdata_root/90001
  600 root /tmp/hsperfdata_root/90002
  644 nobody /tmp/hsperfdata_root/90003
  644 root /tmp/hsperfdata_root/90004
  777 root /tmp/hsperfdata_root/90005
  644 root /tmp/hsperfdata_root/notapid
  666 daemon /tmp/hsperfdata_daemon/90006
  666 daemon /tmp/hsperfdata_daemon/90007
  $ hsperfguard repair --dry-run
  left  file.hard-link  /tmp/hsperfdata_daemon/90006 [high]: not repairable: needs a decision by a person
        manual remedy: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90006`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  left  file.mode  /tmp/hsperfdata_daemon/90006 [high]: the file has more than one hard link: changing it would change the other names too
        manual remedy: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.hard-link  /tmp/hsperfdata_daemon/90007 [high]: not repairable: needs a decision by a person
        manual remedy: Do not open or truncate the file. Find the other names (`find / -xdev -samefile /tmp/hsperfdata_daemon/90007`) and remove the entry in the namespace (unlinking one name does not touch the data reachable through the others).
  left  file.mode  /tmp/hsperfdata_daemon/90007 [high]: the file has more than one hard link: changing it would change the other names too
        manual remedy: Not to be changed in place, by repair or by hand: the file has more than one hard link: changing it would change the other names too. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.bad-size  /tmp/hsperfdata_nobody/90008 [medium]: not repairable: needs a decision by a person
        manual remedy: If no live process maps the file, remove it (`hsperfguard reap`); otherwise check free space in the temp dir and who wrote the file.
  left  file.bad-prologue  /tmp/hsperfdata_nobody/90008 [medium]: not repairable: needs a decision by a person
        manual remedy: Inspect it with `hsperfguard inspect /tmp/hsperfdata_nobody/90008` (the evidence gives the offset and reason of the first error); remove it if no live process maps it.
  left  namespace.unknown-user  /tmp/hsperfdata_nosuchuser [medium]: the namespace names no known user (squatted or orphaned): its rightful owner is unknown
        manual remedy: Check the owner in the evidence. Remove an orphaned namespace after checking that no process uses its files; remove a squatted one and find out who created it.
  left  file.owner-mismatch  /tmp/hsperfdata_root/90003 [high]: not repairable: needs a decision by a person
        manual remedy: Treat the entry as hostile: do not read it with privileged tools, and do not chown it (a root-owned entry proves nothing about who put it there: a user can rename a root-owned file from any directory she can write on the same file system into her namespace). Remove it once no live JVM maps it and find out how its owner could write to the namespace. `hsperfguard repair` never changes an owner.
  left  file.mode  /tmp/hsperfdata_root/90003 [high]: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed
        manual remedy: Not to be changed in place, by repair or by hand: the file is owned by uid 65534, not by root (uid 0): a file put there by someone else is never changed. The other findings of this entry, its namespace or its temp dir say what to do about that first; audit again afterwards (file.mode then says what is left).
  left  file.not-regular  /tmp/hsperfdata_root/90004 [medium]: not repairable: needs a decision by a person
        manual remedy: Remove the entry once you have checked what it is (`hsperfguard reap` removes what is provably not a live JVM's file); find out who created it.
  left  file.symlink  /tmp/hsperfdata_root/90005 [high]: not repairable: needs a decision by a person
        manual remedy: Remove the link itself (`unlink`, never following it) and find out who created it: only the namespace owner or root can, unless the namespace is writable by others.
  left  file.foreign-name  /tmp/hsperfdata_root/notapid [low]: not repairable: needs a decision by a person
        manual remedy: Check what the entry is (owner and kind are in the evidence) and remove it; `hsperfguard reap` removes foreign entries that are safe to remove.
  left  attach.socket-unsafe  /tmp/.java_pid90009 [high]: attach files are not changed by repair
        manual remedy: Remove the entry if the JVM of that pid did not create it and find out who did; then attach again, and restart the JVM if it can no longer be attached.
  repair: 0 would be fixed, 0 failed, 13 left to a person (`hsperfguard audit` shows them)
  exit 4: 12 findings at or above medium would be left to a person (repair does not fix them)
  [4]
  $ hsperfguard audit --no-containers --format json | jq -c '.summary.by_rule'
  {"attach.socket-unsafe":1,"attach.stale":1,"file.bad-prologue":1,"file.bad-size":1,"file.foreign-name":1,"file.hard-link":2,"file.mode":3,"file.not-regular":1,"file.owner-mismatch":1,"file.pid-reused":1,"file.stale":6,"file.symlink":1,"namespace.unknown-user":1}
  [1]

An ACL, which repair strips, on a clean namespace of its own:

  $ mkdir -m 1777 /tmp/acl && mkdir -m 0755 /tmp/acl/hsperfdata_root
  $ cp "$SAMPLE" /tmp/acl/hsperfdata_root/90010 && chmod 0600 /tmp/acl/hsperfdata_root/90010
  $ setfacl -m u:nobody:r /tmp/acl/hsperfdata_root/90010
  $ hsperfguard repair --tmpdir /tmp/acl --dry-run
  would fix  file.mode  /tmp/acl/hsperfdata_root/90010: mode 0640 -> 0600
  would fix  file.acl  /tmp/acl/hsperfdata_root/90010: access ACL reduced to the mode bits, mode 0640 -> 0600
  repair: 2 would be fixed, 0 failed, 0 left to a person
  $ hsperfguard repair --tmpdir /tmp/acl
  fixed  file.mode  /tmp/acl/hsperfdata_root/90010: mode 0640 -> 0600
  fixed  file.acl  /tmp/acl/hsperfdata_root/90010: access ACL reduced to the mode bits, mode 0640 -> 0600
  repair: 1 fixed, 0 failed, 0 left to a person
  $ getfacl -cp /tmp/acl/hsperfdata_root/90010
  user::rw-
  group::---
  other::---
  
  $ hsperfguard repair --tmpdir /tmp/acl --profile strict
  fixed  namespace.not-private  /tmp/acl/hsperfdata_root: mode 0755 -> 0700
  repair: 1 fixed, 0 failed, 0 left to a person
