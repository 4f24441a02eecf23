`ps` and `inspect` on a host with a JDK 17 JVM of root and a JDK 25 JVM of nobody, live, and
the files of make_host (setup.sh). A live JVM's uptime moves (masked), its counters too (only
constant ones are shown); its version is the installed JDK's: an update of either JDK changes
those lines (scripts/transcripts.sh --update).

  $ . "$TESTDIR/setup.sh"
  $ start_jvm 300 "$JAVA17"
  $ start_jvm 400 "$JAVA25" nobody
  $ make_host

  $ hsperfguard ps --no-containers
  HOST-PID  NS-PID  USER    STATE  UPTIME  CONTAINER  VERSION                       MAIN
  400       400     nobody  live   [0-9]+s +-          25\.0\.3\+9-LTS                  IdleJvm (re)
  300       300     root    live   [0-9]+s +-          17\.0\.21\.1\+2-1-deb12u1-Debian  IdleJvm (re)
  $ hsperfguard ps --no-containers --all
  HOST-PID  NS-PID  USER    STATE       UPTIME  CONTAINER  VERSION                       MAIN
  -         90006   daemon  stale       -       -          17.0.15+6-Debian-1deb12u1     Demo arg1 two words
  -         90007   daemon  stale       -       -          17.0.15+6-Debian-1deb12u1     Demo arg1 two words
  400       400     nobody  live        [0-9]+s +-          25\.0\.3\+9-LTS                  IdleJvm (re)
  -         90008   nobody  stale       -       -          -                             -
  300       300     root    live        [0-9]+s +-          17\.0\.21\.1\+2-1-deb12u1-Debian  IdleJvm (re)
  -         500     root    pid-reused  -       -          17.0.15+6-Debian-1deb12u1     Demo arg1 two words
  -         90001   root    stale       -       -          17.0.15+6-Debian-1deb12u1     Demo arg1 two words
  -         90002   root    stale       -       -          17.0.15+6-Debian-1deb12u1     Demo arg1 two words
  -         90003   root    stale       -       -          17.0.15+6-Debian-1deb12u1     Demo arg1 two words
  $ hsperfguard ps --no-containers --all --format json | jq -c '.jvms[] | {host_pid, ns_pid, user, state, main}'
  {"host_pid":null,"ns_pid":90006,"user":"daemon","state":"stale","main":"Demo arg1 two words"}
  {"host_pid":null,"ns_pid":90007,"user":"daemon","state":"stale","main":"Demo arg1 two words"}
  {"host_pid":400,"ns_pid":400,"user":"nobody","state":"live","main":"IdleJvm"}
  {"host_pid":null,"ns_pid":90008,"user":"nobody","state":"stale","main":null}
  {"host_pid":300,"ns_pid":300,"user":"root","state":"live","main":"IdleJvm"}
  {"host_pid":null,"ns_pid":500,"user":"root","state":"pid-reused","main":"Demo arg1 two words"}
  {"host_pid":null,"ns_pid":90001,"user":"root","state":"stale","main":"Demo arg1 two words"}
  {"host_pid":null,"ns_pid":90002,"user":"root","state":"stale","main":"Demo arg1 two words"}
  {"host_pid":null,"ns_pid":90003,"user":"root","state":"stale","main":"Demo arg1 two words"}

  $ hsperfguard inspect 300 --format snap | grep -E '^(sun.rt.javaCommand|java.property.java.vm.specification.version)='
  java.property.java.vm.specification.version="17"
  sun.rt.javaCommand="IdleJvm"
  $ hsperfguard inspect 400 --format snap | grep -E '^(sun.rt.javaCommand|java.property.java.vm.specification.version)='
  java.property.java.vm.specification.version="25"
  sun.rt.javaCommand="IdleJvm"
  $ hsperfguard inspect 400 --format json | jq -c '.prologue | {major_version, byte_order, accessible}'
  {"major_version":2,"byte_order":"little","accessible":1}

The sample region as recorded, in its three formats:

  $ cp "$SAMPLE" /tmp/sample
  $ hsperfguard inspect /tmp/sample | sed -n 1,12p
  main:    Demo arg1 two words
  user:    root (uid 0)
  started: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (re)
  JVM:     17.0.15+6-Debian-1deb12u1 (OpenJDK 64-Bit Server VM)
  file:    /tmp/sample
  format:  PerfData 2.0, little-endian, 32768 bytes, used 12320, overflow 0, accessible 1
  entries: 187 (prologue says 187)
  sun.rt._sync_Inflations                      3 events  (unsupported)
  sun.rt._sync_Deflations                      0 events  (unsupported)
  sun.rt._sync_ContendedLockAttempts           0 events  (unsupported)
  sun.rt._sync_FutileWakeups                   0 events  (unsupported)
  sun.rt._sync_Parks                           1 events  (unsupported)
  $ hsperfguard inspect /tmp/sample --format snap --supported-only | sed -n 1,5p
  java.ci.totalTime=922097
  java.cls.loadedClasses=4
  java.cls.sharedLoadedClasses=396
  java.cls.sharedUnloadedClasses=0
  java.cls.unloadedClasses=0
  $ hsperfguard inspect /tmp/sample --format json | jq -c 'del(.entries)'
  {"error":null,"path":"/tmp/sample","prologue":{"accessible":1,"byte_order":"little","entry_offset":32,"magic":3405693120,"major_version":2,"minor_version":0,"mod_time_stamp":65010108,"num_entries":187,"overflow":0,"used":12320},"size":32768,"walk_end":12320}

Files that are not a live JVM's:

  $ hsperfguard inspect 500 | sed -n 1,8p
  hsperfguard: inspect: note: pid 500 maps no backing file: /tmp/hsperfdata_root/500 is not its own (a stale file of an earlier process with that pid?)
  pid:     500 (pid 500 runs and does not map this file)
  main:    Demo arg1 two words
  user:    root (uid 0)
  started: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (re)
  JVM:     17.0.15+6-Debian-1deb12u1 (OpenJDK 64-Bit Server VM)
  file:    /tmp/hsperfdata_root/500
  format:  PerfData 2.0, little-endian, 32768 bytes, used 12320, overflow 0, accessible 1
  entries: 187 (prologue says 187)
  $ hsperfguard inspect /tmp/hsperfdata_nobody/90008
  hsperfguard: inspect: /tmp/hsperfdata_nobody/90008: not a valid PerfData region: used 12320 outside [32, 100] (at offset 8)
  hsperfguard: inspect: exit 5: not a valid PerfData region
  [5]
  $ hsperfguard inspect /tmp/hsperfdata_root/90004
  hsperfguard: inspect: /tmp/hsperfdata_root/90004: is a FIFO, not a regular file
  hsperfguard: inspect: exit 3: could not read the file or the process's mapping
  [3]
  $ hsperfguard inspect /tmp/hsperfdata_root/90005
  hsperfguard: inspect: /tmp/hsperfdata_root/90005: is a symbolic link, not a regular file
  hsperfguard: inspect: exit 3: could not read the file or the process's mapping
  [3]
  $ hsperfguard inspect /tmp/hsperfdata_root/notapid
  hsperfguard: inspect: /tmp/hsperfdata_root/notapid: not a valid PerfData region: region of 4 bytes is shorter than the 32-byte prologue (at offset 4)
  hsperfguard: inspect: exit 5: not a valid PerfData region
  [5]
  $ stop_all
  $ hsperfguard ps --no-containers
  HOST-PID  NS-PID  USER  STATE  UPTIME  CONTAINER  VERSION  MAIN
