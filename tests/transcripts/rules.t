The rule catalogue, and one rule explained.

  $ . "$TESTDIR/setup.sh"

  $ hsperfguard rules
  attach.no-listener              low       Attach socket that nothing listens on
  attach.observation-error        low       Attach file could not be observed completely
  attach.socket-unsafe            high      Attach listener socket is unsafe
  attach.stale                    low       Attach file of a process that no longer exists
  dacl.admins-missing             low       Administrators lack full control  [repairable]
  dacl.everyone-too-broad         high      Everyone holds more access than HotSpot grants  [repairable]
  dacl.extra-writer               high      An account other than the user, Administrators or SYSTEM can modify it  [repairable]
  dacl.file-data-readable         low       Every user can read the backing file's data  [repairable]
  dacl.not-protected              medium    DACL is not protected from inheritance  [repairable]
  dacl.null                       critical  No DACL: everyone has full access  [repairable]
  dacl.owner                      high      Owned by neither its user nor Administrators
  file.acl                        medium    Backing file has an extended ACL  [repairable]
  file.bad-prologue               medium    Backing file is not a valid PerfData region
  file.bad-size                   medium    Backing file has an impossible size
  file.compressed                 low       Backing file is compressed
  file.foreign-name               low       Namespace entry does not have a pid name
  file.hard-link                  high      Backing file has more than one hard link
  file.identity-changed           high      Namespace entry changed identity while it was observed
  file.mode                       high      Backing file is accessible to group or others  [repairable]
  file.mount-boundary             medium    Namespace entry is a mount point
  file.noncanonical-pid           medium    Backing file name is a pid with leading zeros
  file.not-regular                medium    Backing file is not a regular file
  file.observation-error          low       Namespace entry could not be observed completely
  file.owner-mismatch             high      Namespace entry is not owned by the namespace owner
  file.pid-out-of-range           low       Backing file name is a number outside the pid range
  file.pid-reused                 medium    Backing file named after a live process that is not its JVM
  file.setid                      low       Backing file has setuid, setgid or sticky bits  [repairable]
  file.stale                      low       Backing file of a JVM that is gone
  file.symlink                    high      Namespace entry is a symbolic link
  jvm.backing-file-deleted        high      JVM's backing file was deleted
  jvm.cause-undetermined          low       JVM is invisible for no cause observed now
  jvm.create-failed               high      JVM could not create its backing file
  jvm.locked-by-another-jvm       high      JVM's backing file name is locked by another process
  jvm.namespace-changed           medium    JVM is invisible and its namespace changed after it started
  jvm.no-passwd-entry             high      JVM's uid has no user name, so it makes no namespace
  jvm.other-account-temp-dir      info      JVM publishes in another account's temp dir
  jvm.own-mount-namespace         info      JVM is reachable only from its own mount namespace
  jvm.perf-data-disabled          info      JVM runs with performance data disabled
  namespace.acl-grants-write      high      Namespace ACL lets other users write to it  [repairable]
  namespace.default-acl           medium    Namespace has a default ACL that widens access to new files  [repairable]
  namespace.group-other-writable  high      Namespace is writable by group or others  [repairable]
  namespace.identity-changed      high      Namespace changed identity while it was observed
  namespace.immutable             high      Namespace directory is immutable
  namespace.jvm-blinded           medium    Live JVM is blind because its namespace is rejected
  namespace.mount-boundary        medium    Namespace is on another file system than its temp dir
  namespace.no-space              medium    No space for a backing file in the namespace
  namespace.not-directory         medium    Namespace is not a directory
  namespace.not-private           low       Namespace is readable or searchable by group or others  [repairable]
  namespace.observation-error     low       Namespace could not be observed completely
  namespace.owner-mismatch        high      Namespace is not owned by the user it is named after
  namespace.owner-no-access       high      Namespace owner cannot read, search or write it  [repairable]
  namespace.read-only             high      Namespace is on a read-only file system
  namespace.reparse-point         high      Namespace is a reparse point
  namespace.root-owner-mismatch   high      Root's namespace owned by another user
  namespace.symlink               high      Namespace is a symbolic link
  namespace.unknown-user          medium    Namespace names a user that does not exist
  namespace.user-lookup-failed    info      Namespace user could not be looked up
  tmpdir.cleaner-ages-jvm-files   medium    A configured cleaner ages out live JVMs' files
  tmpdir.cleaners-unread          low       Cleaner configuration that was not read or not understood
  tmpdir.containers-unobserved    high      Processes whose containers could not be looked into
  tmpdir.identity-changed         high      Temp dir changed identity while it was observed
  tmpdir.new-namespaces-fail      medium    JVMs of users without a namespace cannot publish
  tmpdir.observation-error        low       Temp dir could not be observed completely
  tmpdir.shared-pid-names         medium    A /tmp shared by containers whose JVMs' names collide
  tmpdir.unsafe                   high      Temp dir is unsafe to hold hsperfdata namespaces
  volume.compressed               medium    Namespace volume is compressed
  volume.network-filesystem       medium    Namespace is on a network or user-space file system
  volume.no-acl-support           low       Namespace volume has no ACL support
  volume.no-persistent-acls       medium    Namespace volume does not keep ACLs
  volume.unc-path                 medium    Namespace is reached through a UNC path
  $ hsperfguard rules --format json | jq -r 'keys[]' | sed -n 1,3p
  profiles
  rules
  $ hsperfguard rules show namespace.group-other-writable
  namespace.group-other-writable: Namespace is writable by group or others
  
  severity:   default high, hotspot high, strict high (by profile; a policy file may change it: hsperfguard-policy(5))
  applies to: namespace
  platforms:  linux
  repair:     `hsperfguard repair` fixes it
  
  why it matters:
    Anyone who can write the namespace directory can delete a JVM's backing
    file, plant a file under a future pid (a FIFO, a hard link to another file,
    a forged region that jps and jstat will trust) or rename entries. HotSpot
    checks exactly this (no S_IWGRP, no S_IWOTH) and refuses to use the
    directory, so the user's JVMs also lose their shared performance data.
  
  evidence (each finding's observed values, in the JSON report):
    group_writable, mode, mode_numeric, other_writable, owner_uid, source,
    sticky
  
  remedy:
    Remove the write bits: `chmod go-w /tmp/hsperfdata_<user>` (HotSpot creates
    it 0755). Then check the files inside for planted entries: rerun the audit.
  
  references: JDK-8050807, CWE-732
  $ hsperfguard rules show file.hard-link
  file.hard-link: Backing file has more than one hard link
  
  severity:   default high, hotspot high, strict critical (by profile; a policy file may change it: hsperfguard-policy(5))
  applies to: file
  platforms:  linux, windows
  repair:     `hsperfguard repair` does not fix it: follow the remedy
  
  why it matters:
    A backing file with st_nlink > 1 is also reachable under another name,
    possibly outside the namespace: planting a hard link to a victim file under
    a future pid makes a JVM truncate and overwrite that file, and makes readers
    publish its contents. HotSpot refuses such files (JDK-8050807) and readers
    check the link count too.
  
  evidence (each finding's observed values, in the JSON report):
    dev, ino, nlink
  
  remedy:
    Do not open or truncate the file. Find the other names (`find / -xdev
    -samefile <file>`) and remove the entry in the namespace (unlinking one name
    does not touch the data reachable through the others).
  
  references: JDK-8050807, CWE-62
  $ hsperfguard rules show file.mode --format json | jq -c '{id, severity, repairable, severity_by_profile}'
  {"id":"file.mode","severity":"high","repairable":true,"severity_by_profile":{"default":"high","hotspot":null,"strict":"high"}}
