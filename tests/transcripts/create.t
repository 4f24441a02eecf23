Create a namespace and a backing region, verify them, and refuse what is unsafe.

  $ . "$TESTDIR/setup.sh"

  $ hsperfguard create --user daemon
  created /tmp/hsperfdata_daemon (owner daemon uid 1, mode 0755)
  $ stat -c '%a %U:%G %n' /tmp/hsperfdata_daemon
  755 daemon:daemon /tmp/hsperfdata_daemon
  $ hsperfguard create --user daemon
  verified /tmp/hsperfdata_daemon (owner daemon uid 1, mode 0755)
  $ hsperfguard create --user daemon --mode 0700
  namespace /tmp/hsperfdata_daemon: mode 0755 -> 0700
  changed /tmp/hsperfdata_daemon (owner daemon uid 1, mode 0700)
  $ stat -c '%a %U:%G %n' /tmp/hsperfdata_daemon
  700 daemon:daemon /tmp/hsperfdata_daemon
  $ hsperfguard create --user daemon --pid 4242 --command 'Main arg' --size 40000
  verified /tmp/hsperfdata_daemon (owner daemon uid 1, mode 0700)
  created /tmp/hsperfdata_daemon/4242 (40960 bytes, mode 0600)
  $ stat -c '%a %U:%G %s %n' /tmp/hsperfdata_daemon/4242
  600 daemon:daemon 40960 /tmp/hsperfdata_daemon/4242
  $ hsperfguard inspect /tmp/hsperfdata_daemon/4242 --format json | jq -c '{size, entries: [.entries[] | select(.name == "sun.rt.javaCommand") | .value]}'
  {"size":40960,"entries":["Main arg"]}
  $ hsperfguard create --user daemon --pid 4242
  hsperfguard: create: /tmp/hsperfdata_daemon/4242: openat: File exists
  hsperfguard: create: backing file /tmp/hsperfdata_daemon/4242 (32768 bytes) already exists (it appeared while this run was working, or was not judged): refused, nothing changed
  verified /tmp/hsperfdata_daemon (owner daemon uid 1, mode 0700)
  exit 4: refused: backing file /tmp/hsperfdata_daemon/4242 (32768 bytes) appeared while this run was working; nothing changed
  [4]

A namespace that the rules fault is left alone:

  $ mkdir -m 0777 /tmp/hsperfdata_nobody && chown nobody /tmp/hsperfdata_nobody && chmod 0777 /tmp/hsperfdata_nobody
  $ hsperfguard create --user nobody
  hsperfguard: create: refused: /tmp/hsperfdata_nobody exists and is unsafe; it was left as it is:
    [high] namespace.group-other-writable: namespace /tmp/hsperfdata_nobody is writable by group and others (mode 0777); HotSpot refuses it
        `hsperfguard repair` fixes it (mode 0777 -> 0755)
  exit 4: refused: /tmp/hsperfdata_nobody exists and is unsafe (1 finding at or above medium); it was left as it is
  [4]
  $ ln -s /etc /tmp/hsperfdata_games
  $ hsperfguard create --user games
  hsperfguard: create: refused: /tmp/hsperfdata_games exists and is unsafe; it was left as it is:
    [high] namespace.symlink: namespace /tmp/hsperfdata_games is a symbolic link; HotSpot refuses it and the user's JVMs run without shared performance data
        `hsperfguard repair` leaves it: the namespace is a symbolic link: repair never follows it (remove the link itself); manual remedy: Remove the link itself, never its target (`unlink /tmp/hsperfdata_games`, not `rm -r` with a trailing slash), then let the user's next JVM create the directory or run `hsperfguard create`. Find out who created the link: its owner is in the evidence.
  exit 4: refused: /tmp/hsperfdata_games exists and is unsafe (1 finding at or above medium); it was left as it is
  [4]
  $ hsperfguard create --user root --tmpdir /tmp/hsperfdata_nobody
  hsperfguard: create: refused: the temp dir /tmp/hsperfdata_nobody is unsafe, nothing is made beneath it:
    [high] tmpdir.unsafe: temp dir /tmp/hsperfdata_nobody is unsafe for hsperfdata namespaces: owned by uid 65534, not root; writable by group or others (mode 0777) without the sticky bit
  exit 4: refused: the temp dir /tmp/hsperfdata_nobody is unsafe (1 finding at or above medium); nothing was made
  [4]

As the user herself, and for another user:

  $ setpriv --reuid=nobody --regid=nogroup --clear-groups "$HSPERFGUARD_BINARY" create --user daemon
  hsperfguard: create: only root may create the namespace of another user (daemon is uid 1, this process runs as uid 65534): run it as root, or as daemon
  [2]
  $ mkdir -m 1777 /tmp/u
  $ setpriv --reuid=nobody --regid=nogroup --clear-groups "$HSPERFGUARD_BINARY" create --user nobody --tmpdir /tmp/u --pid 77
  created /tmp/u/hsperfdata_nobody (owner nobody uid 65534, mode 0755)
  created /tmp/u/hsperfdata_nobody/77 (32768 bytes, mode 0600)
  $ stat -c '%a %U %n' /tmp/u/hsperfdata_nobody /tmp/u/hsperfdata_nobody/77
  755 nobody /tmp/u/hsperfdata_nobody
  600 nobody /tmp/u/hsperfdata_nobody/77
