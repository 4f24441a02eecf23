The help of every subcommand, as printed by --help and by `help`.

  $ . "$TESTDIR/setup.sh"

  $ hsperfguard --help
  hsperfguard: audit and clean up the JVM's hsperfdata namespaces
  
  Usage: hsperfguard SUBCOMMAND [OPTIONS]
         hsperfguard help [SUBCOMMAND]
  
  Options:
    -h, --help                Print this help and exit
    -V, --version             Display program version information and exit
    --help-all                Print this help with every subcommand's options
    --bash-completion         Print a bash completion script for these subcommands
                              and options (the packages install it)
  
  Subcommands:
    audit                     Audit every hsperfdata namespace and report
    rules                     List the rule catalogue; `rules show ID` explains
                              one rule
    inspect                   Decode one backing file (a path or a pid)
    reap                      Remove stale and foreign hsperfdata files safely
                              (plan first, then act)
    ps                        List every JVM of the host, across users and
                              containers (without starting a JVM)
    create                    Create (or verify) a user's namespace, and
                              optionally a backing region for a pid
    repair                    Fix the findings that are safe to fix in place
                              (modes, ACLs, Windows DACLs; never an owner)
  
  Run `hsperfguard help SUBCOMMAND` (or `hsperfguard SUBCOMMAND --help`) for a
  subcommand's options and exit codes.
  
  Exit status:
    0  clean (audit); done, or nothing to do (the other subcommands)
    1  audit: findings at or above --fail-on (default medium); reap and repair:
       some removals or fixes failed
    2  usage error: an unknown subcommand or option, a malformed value, a path
       that does not exist or is not a directory, a bad policy file
    3  could not complete: a temp dir or file could not be read, the report,
       metrics or standard output could not be written, a lock or journal
       unusable, a stop signal or --max-runtime before everything was observed, a
       container that could not be looked into
    4  unsafe state left: create refused an existing namespace, backing file or
       temp dir; repair (--dry-run too) leaves findings at or above medium that it
       does not fix
    5  invalid data: inspect was given something that is not a PerfData region
  $ hsperfguard --version
  hsperfguard 0\.1\.0 \(.*\) (re)
  $ hsperfguard help
  hsperfguard: audit and clean up the JVM's hsperfdata namespaces
  
  Usage: hsperfguard SUBCOMMAND [OPTIONS]
         hsperfguard help [SUBCOMMAND]
  
  Options:
    -h, --help                Print this help and exit
    -V, --version             Display program version information and exit
    --help-all                Print this help with every subcommand's options
    --bash-completion         Print a bash completion script for these subcommands
                              and options (the packages install it)
  
  Subcommands:
    audit                     Audit every hsperfdata namespace and report
    rules                     List the rule catalogue; `rules show ID` explains
                              one rule
    inspect                   Decode one backing file (a path or a pid)
    reap                      Remove stale and foreign hsperfdata files safely
                              (plan first, then act)
    ps                        List every JVM of the host, across users and
                              containers (without starting a JVM)
    create                    Create (or verify) a user's namespace, and
                              optionally a backing region for a pid
    repair                    Fix the findings that are safe to fix in place
                              (modes, ACLs, Windows DACLs; never an owner)
  
  Run `hsperfguard help SUBCOMMAND` (or `hsperfguard SUBCOMMAND --help`) for a
  subcommand's options and exit codes.
  
  Exit status:
    0  clean (audit); done, or nothing to do (the other subcommands)
    1  audit: findings at or above --fail-on (default medium); reap and repair:
       some removals or fixes failed
    2  usage error: an unknown subcommand or option, a malformed value, a path
       that does not exist or is not a directory, a bad policy file
    3  could not complete: a temp dir or file could not be read, the report,
       metrics or standard output could not be written, a lock or journal
       unusable, a stop signal or --max-runtime before everything was observed, a
       container that could not be looked into
    4  unsafe state left: create refused an existing namespace, backing file or
       temp dir; repair (--dry-run too) leaves findings at or above medium that it
       does not fix
    5  invalid data: inspect was given something that is not a PerfData region

  $ hsperfguard audit --help
  Audit every hsperfdata namespace and report
  
  Usage: hsperfguard audit [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    --tmpdir DIR              Audit this temp dir of this host instead of /tmp.
                              Cannot be combined with --container,
                              --containers-only or --root.
    --root DIR                Audit the system whose root is DIR (its /tmp, its
                              etc/passwd).
                              Cannot be combined with --containers-only or
                              --tmpdir.
    --profile default|hotspot|strict
                              Rule profile: default, strict or hotspot
    --policy FILE             JSON policy: disable rules, change severities
                              (default: /etc/hsperfguard/policy.json when it
                              exists; hsperfguard-policy(5)).
                              Cannot be combined with --no-policy.
    --no-policy               Do not read /etc/hsperfguard/policy.json: the
                              profile alone.
                              Cannot be combined with --policy.
    -f, --format json|text    text (the default) or json
    -o, --output FILE         Write the report to FILE (atomically; a device, FIFO
                              or - is written through)
    -v, --verbose             Text: list every finding with its evidence (none
                              grouped)
    --color auto|always|never
                              auto (on a terminal, unless NO_COLOR is set), always
                              or never
    --max-runtime DURATION    Stop after this long (exit 3; the report says where
                              it stopped)
    --every DURATION          Run again this long after each run began, until
                              SIGTERM or SIGINT (at least 1s; a run that takes
                              longer is followed at once)
    --fail-on info|low|medium|high|critical
                              Exit 1 when a finding is at least this severe
                              (default: medium)
    --no-containers           Skip the temp dirs of containers (looked at as
                              root).
                              Cannot be combined with --container or
                              --containers-only.
    --container PID           Audit only the temp dir of the container that
                              process PID is in.
                              Cannot be combined with --containers-only,
                              --no-containers or --tmpdir.
    --user USER               Audit only the namespaces of USER (hsperfdata_USER):
                              the others are out of scope, and so are containers
                              when not root; the run is complete when all of
                              USER's were read
    --containers-only         Audit every other mount namespace's temp dir, not
                              our own (as root; in a pod with the node's pid
                              namespace: the node's /tmp and every container's).
                              Cannot be combined with --container,
                              --no-containers, --root or --tmpdir.
    --metrics FILE            Write Prometheus metrics to FILE (node_exporter
                              textfile collector), atomically
    --log-format text|json    Also log one line per action or error on stderr:
                              text or json
    -q, --quiet               No report on stdout (use --output): only what needs
                              a person, one line each (audit: findings at or above
                              --fail-on; reap: failed removals, entries left to a
                              person), nothing on a clean run; with --log-format,
                              no summary line when all is well
    --syslog                  Write the log lines (--log-format, text by default)
                              to the system log (tag hsperfguard-COMMAND, priority
                              from each line's level) instead of stderr, which
                              keeps the error messages; to stderr, saying so once,
                              if nothing receives them at /dev/log
  
  DURATION: 90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d.
  
  Exit status:
    0  clean: no finding at or above --fail-on
    1  findings at or above --fail-on (default medium)
    2  usage error (also: --tmpdir, --root or --policy naming a path that does not
       exist, a bad policy file, --container naming no process)
    3  could not complete: a temp dir, namespace or entry that could not be read,
       a user not looked up, a container that could not be looked into or, not
       root, containers not scanned (its last line says what and why; --user NAME
       audits only NAME's namespaces), the report, metrics or standard output not
       written, a stop signal or --max-runtime (the report says where it stopped)

  $ hsperfguard reap --help
  Remove stale and foreign hsperfdata files safely (plan first, then act)
  
  Usage: hsperfguard reap [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    --tmpdir DIR              Reap this temp dir of this host instead of /tmp.
                              Cannot be combined with --container or --root.
    --root DIR                Reap the system whose root is DIR (its /tmp, its
                              etc/passwd).
                              Cannot be combined with --tmpdir.
    -n, --dry-run             Print the plan; change nothing
    --min-age DURATION        Leave entries changed (ctime or mtime) less than
                              this long ago (default: 60s)
    --max-runtime DURATION    Stop after this long: no new removal is started
                              (checked between entries; in discovery or
                              observation: exit 3). The host's temp dir (or
                              --tmpdir, --root) is reaped first; each container's
                              then has an equal share of what is left
    -f, --format json|text    text (the default) or json
    -o, --output FILE         Write the report to FILE (atomically; a device, FIFO
                              or - is written through)
    -v, --verbose             Text: list every plan item and action (none grouped)
    --color auto|always|never
                              auto (on a terminal, unless NO_COLOR is set), always
                              or never
    --include-special         Also remove stale FIFOs, sockets and devices in
                              namespaces
    --remove-empty-namespaces
                              Also remove empty namespace directories of users
                              that no longer exist
    --lock-file FILE          Single-instance lock file (in a directory only its
                              owner may write; no link in its path is followed)
                              (default: /run/hsperfguard/reap.lock).
                              Cannot be combined with --no-lock.
    --no-lock                 Take no single-instance lock.
                              Cannot be combined with --lock-file.
    --wait                    Wait for a running reap to finish (bounded by
                              --max-runtime).
                              Cannot be combined with --no-wait.
    --no-wait                 Exit 0 at once if another reap runs (default).
                              Cannot be combined with --wait.
    --journal FILE            Append one JSON line per removal to FILE as the run
                              goes (survives a kill; a file of ours alone, in a
                              directory only its owner may write)
    --no-containers           Skip the temp dirs of containers (looked at as
                              root).
                              Cannot be combined with --container.
    --container PID           Reap only the temp dir of the container that process
                              PID is in.
                              Cannot be combined with --no-containers or --tmpdir.
    --user USER               Reap only the namespaces of USER (hsperfdata_USER):
                              the others are out of scope, and so are containers
                              when not root; the run is complete when all of
                              USER's were read
    --metrics FILE            Write Prometheus metrics to FILE (node_exporter
                              textfile collector), atomically
    --log-format text|json    Also log one line per action or error on stderr:
                              text or json
    -q, --quiet               No report on stdout (use --output): only what needs
                              a person, one line each (audit: findings at or above
                              --fail-on; reap: failed removals, entries left to a
                              person), nothing on a clean run; with --log-format,
                              no summary line when all is well
    --syslog                  Write the log lines (--log-format, text by default)
                              to the system log (tag hsperfguard-COMMAND, priority
                              from each line's level) instead of stderr, which
                              keeps the error messages; to stderr, saying so once,
                              if nothing receives them at /dev/log
  
  The plan (every entry, its verdict, the evidence and the action) is made first and
  printed as is by --dry-run; execution then re-checks each entry before unlinking it.
  An entry the identity the reaper acts with may not remove (another user's file it may
  not read, a namespace its owner may not write) is kept (not-permitted) with a remedy:
  left to a person, in the dry run and the real run alike, and not a failure.
  Lock: one reap at a time per host. Without --wait, a run that finds the lock held
  exits 0 at once (the other run does the work); with --wait it waits, for at most
  --max-runtime when given, then exits 0 as well.
  
  DURATION: 90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d.
  
  Exit status:
    0  done or nothing to do (also: --max-runtime reached while acting, another
       reap holds the lock)
    1  some removals failed (entries left to a person are not failures)
    2  usage error (also: --tmpdir or --root naming a path that does not exist,
       --container naming no process)
    3  could not run: a temp dir unreadable or not observed to its end (the
       report's roots say which), a namespace or entry unreadable or, not root,
       containers not scanned (nothing of them is removed; its last line says
       what), the lock or journal unusable, the report not written, interrupted by
       a signal

  $ hsperfguard repair --help
  Fix the findings that are safe to fix in place (modes, ACLs, Windows DACLs; never an owner)
  
  Usage: hsperfguard repair [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    --tmpdir DIR              Repair this temp dir instead of /tmp.
                              Cannot be combined with --root.
    --root DIR                Repair the system whose root is DIR (its /tmp, its
                              etc/passwd).
                              Cannot be combined with --tmpdir.
    -n, --dry-run             Print what would be fixed and what is left; change
                              nothing
    --profile default|hotspot|strict
                              Rule profile: default, strict or hotspot (default:
                              default)
    --policy FILE             JSON policy: disable rules, change severities
                              (default: /etc/hsperfguard/policy.json when it
                              exists; hsperfguard-policy(5)).
                              Cannot be combined with --no-policy.
    --no-policy               Do not read /etc/hsperfguard/policy.json: the
                              profile alone.
                              Cannot be combined with --policy.
    -f, --format json|text    text (the default) or json
    -o, --output FILE         Write the report to FILE (atomically; a device, FIFO
                              or - is written through)
    --color auto|always|never
                              auto (on a terminal, unless NO_COLOR is set), always
                              or never
    -q, --quiet               No report on stdout (use --output): only what needs
                              a person, one line each (fixes not done, findings
                              left at or above medium, the exit line), nothing
                              when all is well
  
  Judges like `audit`, then fixes, through the verified descriptors, only what the rule
  catalogue marks repairable and only inside namespaces that are safe to act in: group and
  other write removed, backing files 0600, ACLs stripped. It never changes an owner: an
  entry owned by another user (root's too: a root-owned file in a user's namespace proves
  nothing about who put it there) is listed with the manual remedy. A symlinked, squatted
  or unknown user's namespace is never entered: its findings are listed the same way.
  On Windows the dacl.* findings are fixed: the namespace or backing file gets the
  protected DACL `create` gives (the user and Administrators full control, Everyone as
  HotSpot allows), set through a handle to the object itself and read back; owners are
  never changed.
  
  Exit status:
    0  nothing left at or above medium
    1  some fixes failed
    2  usage error (the message says which option or value)
    3  could not complete: a temp dir could not be opened or read whole, or a
       namespace or entry could not be looked at (the errors say which)
    4  findings at or above medium are left that repair does not fix (--dry-run:
       would be left)

  $ hsperfguard create --help
  Create (or verify) a user's namespace, and optionally a backing region for a pid
  
  Usage: hsperfguard create [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    --user USER               The user the namespace is named after and owned by.
                              Required.
    --tmpdir DIR              Create in this temp dir instead of /tmp.
                              Cannot be combined with --root.
    --root DIR                Create in the system whose root is DIR (its /tmp,
                              its etc/passwd).
                              Cannot be combined with --tmpdir.
    --mode 0755|755|0700|700  Mode of a namespace it makes: 0755 (HotSpot's) or
                              0700; an existing one only loses the bits this mode
                              lacks (default: 0755)
    --pid PID                 Also create the backing file of this pid
    --size BYTES              Region size in bytes (default 32768; rounded up to
                              the page size).
                              Only with --pid.
    --command TEXT            sun.rt.javaCommand of the region (what jps shows).
                              Only with --pid.
    --profile default|hotspot|strict
                              Rule profile the result is judged with (default:
                              default)
    --policy FILE             JSON policy: disable rules, change severities
                              (default: /etc/hsperfguard/policy.json when it
                              exists; hsperfguard-policy(5)).
                              Cannot be combined with --no-policy.
    --no-policy               Do not read /etc/hsperfguard/policy.json: the
                              profile alone.
                              Cannot be combined with --policy.
    -f, --format json|text    text (the default) or json
    -o, --output FILE         Write the report to FILE (atomically; a device, FIFO
                              or - is written through)
    --color auto|always|never
                              auto (on a terminal, unless NO_COLOR is set), always
                              or never
    -q, --quiet               No report on stdout (use --output): nothing when all
                              is well, else the exit line (the reasons are on
                              stderr)
  
  The namespace is made with mkdirat beneath the verified temp dir, owned by the user, with
  no ACL, then judged by the audit's rules. An existing namespace that the rules fault is
  refused and left alone; each finding says whether `hsperfguard repair` fixes it. A compliant
  one is never loosened: it only loses the mode bits --mode lacks, and create says what changed.
  --pid makes a backing file (O_EXCL, 0600, space reserved first) with a valid region.
  Windows: CreateDirectoryW / CreateFileW(CREATE_NEW) with a protected DACL owned by the
  user's SID: HotSpot's masks, without Everyone reading a backing file's data.
  
  Exit status:
    0  made or verified
    2  usage error (also: no such user, another user's namespace when not root)
    3  could not complete: an I/O error, no space left (nothing is left behind)
    4  refused: an existing namespace, backing file or the temp dir is unsafe or
       in the way (left alone)

  $ hsperfguard ps --help
  List every JVM of the host, across users and containers (without starting a JVM)
  
  Usage: hsperfguard ps [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    -f, --format json|text    text (the default) or json
    -o, --output FILE         Write the report to FILE (atomically; a device, FIFO
                              or - is written through)
    --all                     Also list backing files that no live JVM owns
                              (stale, pid-reused, foreign)
    --no-containers           Look at the host's temp dir only.
                              Cannot be combined with --container.
    --container PID           Only the JVMs of the container that process PID is
                              in.
                              Cannot be combined with --no-containers.
  
  Containers are looked at when running as root.
  
  STATE: the backing file's verdict, or why a live JVM has none; each JVM jps
  cannot see gets a line below the table with its reason and fix:
    live        a JVM holds its backing file's lock or maps it
    unknown     whether the backing file's JVM is alive cannot be proven
                (permissions, an unreadable /proc), or a JVM whose maps could not
                be read
    stale       --all: the backing file's JVM is gone
    pid-reused  --all: the backing file's pid is now another process's
    foreign     --all: not a JVM's backing file
    blind       a live process that maps libjvm.so but no backing file
                (-XX:-UsePerfData, -XX:+PerfDisableSharedMem, a namespace HotSpot
                refused, a file it could not make, a name another JVM locks, a uid
                with no user name); jps cannot see it
    deleted     a live JVM whose backing file was deleted (a temp cleaner); jps
                cannot see it, as root `hsperfguard inspect PID` still reads its
                counters
    unlisted    a live JVM whose backing file is in no namespace looked at (a
                container's own mount)
    openj9      a live OpenJ9 JVM: it writes no hsperfdata by design; OpenJ9's own
                jcmd and jps reach it
  
  Exit status:
    0  listed
    2  usage error (also: --container naming no process)
    3  processes or temp dirs that could not be looked into (the errors say which)

  $ hsperfguard inspect --help
  Decode one backing file (a path or a pid)
  
  Usage: hsperfguard inspect [OPTIONS] FILE|PID
  
  Positionals:
    FILE|PID                  Backing file path, or a pid: the file that process
                              maps, else its user's
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    -f, --format snap|json|text
                              snap (jstat -snap lines), json or text
    --supported-only          snap: only counters flagged supported (like jstat
                              without showUnsupported)
    --tmpdir DIR              Where to resolve a pid (default: /tmp)
  
  Exit status:
    0  decoded
    2  usage error (also: a path that does not exist)
    3  could not read the file or the process's mapping
    5  not a valid PerfData region

  $ hsperfguard rules --help
  List the rule catalogue; `rules show ID` explains one rule
  
  Usage: hsperfguard rules [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    -f, --format json|text    json or text
  
  Subcommands:
    show                      One rule: why it matters, its evidence, its remedy,
                              whether repair fixes it, its severity by profile
  
  Exit status:
    0  listed
    2  usage error (the message says which option or value)

  $ hsperfguard rules show --help
  One rule: why it matters, its evidence, its remedy, whether repair fixes it, its severity by profile
  
  Usage: hsperfguard rules show [OPTIONS] ID
  
  Positionals:
    ID                        The rule id (e.g. namespace.group-other-writable)
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    -f, --format json|text    json or text
  
  Exit status:
    0  shown
    2  usage error (also: an unknown rule id; the message names the nearest one)

  $ hsperfguard help reap
  Remove stale and foreign hsperfdata files safely (plan first, then act)
  
  Usage: hsperfguard reap [OPTIONS]
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    --tmpdir DIR              Reap this temp dir of this host instead of /tmp.
                              Cannot be combined with --container or --root.
    --root DIR                Reap the system whose root is DIR (its /tmp, its
                              etc/passwd).
                              Cannot be combined with --tmpdir.
    -n, --dry-run             Print the plan; change nothing
    --min-age DURATION        Leave entries changed (ctime or mtime) less than
                              this long ago (default: 60s)
    --max-runtime DURATION    Stop after this long: no new removal is started
                              (checked between entries; in discovery or
                              observation: exit 3). The host's temp dir (or
                              --tmpdir, --root) is reaped first; each container's
                              then has an equal share of what is left
    -f, --format json|text    text (the default) or json
    -o, --output FILE         Write the report to FILE (atomically; a device, FIFO
                              or - is written through)
    -v, --verbose             Text: list every plan item and action (none grouped)
    --color auto|always|never
                              auto (on a terminal, unless NO_COLOR is set), always
                              or never
    --include-special         Also remove stale FIFOs, sockets and devices in
                              namespaces
    --remove-empty-namespaces
                              Also remove empty namespace directories of users
                              that no longer exist
    --lock-file FILE          Single-instance lock file (in a directory only its
                              owner may write; no link in its path is followed)
                              (default: /run/hsperfguard/reap.lock).
                              Cannot be combined with --no-lock.
    --no-lock                 Take no single-instance lock.
                              Cannot be combined with --lock-file.
    --wait                    Wait for a running reap to finish (bounded by
                              --max-runtime).
                              Cannot be combined with --no-wait.
    --no-wait                 Exit 0 at once if another reap runs (default).
                              Cannot be combined with --wait.
    --journal FILE            Append one JSON line per removal to FILE as the run
                              goes (survives a kill; a file of ours alone, in a
                              directory only its owner may write)
    --no-containers           Skip the temp dirs of containers (looked at as
                              root).
                              Cannot be combined with --container.
    --container PID           Reap only the temp dir of the container that process
                              PID is in.
                              Cannot be combined with --no-containers or --tmpdir.
    --user USER               Reap only the namespaces of USER (hsperfdata_USER):
                              the others are out of scope, and so are containers
                              when not root; the run is complete when all of
                              USER's were read
    --metrics FILE            Write Prometheus metrics to FILE (node_exporter
                              textfile collector), atomically
    --log-format text|json    Also log one line per action or error on stderr:
                              text or json
    -q, --quiet               No report on stdout (use --output): only what needs
                              a person, one line each (audit: findings at or above
                              --fail-on; reap: failed removals, entries left to a
                              person), nothing on a clean run; with --log-format,
                              no summary line when all is well
    --syslog                  Write the log lines (--log-format, text by default)
                              to the system log (tag hsperfguard-COMMAND, priority
                              from each line's level) instead of stderr, which
                              keeps the error messages; to stderr, saying so once,
                              if nothing receives them at /dev/log
  
  The plan (every entry, its verdict, the evidence and the action) is made first and
  printed as is by --dry-run; execution then re-checks each entry before unlinking it.
  An entry the identity the reaper acts with may not remove (another user's file it may
  not read, a namespace its owner may not write) is kept (not-permitted) with a remedy:
  left to a person, in the dry run and the real run alike, and not a failure.
  Lock: one reap at a time per host. Without --wait, a run that finds the lock held
  exits 0 at once (the other run does the work); with --wait it waits, for at most
  --max-runtime when given, then exits 0 as well.
  
  DURATION: 90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d.
  
  Exit status:
    0  done or nothing to do (also: --max-runtime reached while acting, another
       reap holds the lock)
    1  some removals failed (entries left to a person are not failures)
    2  usage error (also: --tmpdir or --root naming a path that does not exist,
       --container naming no process)
    3  could not run: a temp dir unreadable or not observed to its end (the
       report's roots say which), a namespace or entry unreadable or, not root,
       containers not scanned (nothing of them is removed; its last line says
       what), the lock or journal unusable, the report not written, interrupted by
       a signal
  $ hsperfguard help rules show
  One rule: why it matters, its evidence, its remedy, whether repair fixes it, its severity by profile
  
  Usage: hsperfguard rules show [OPTIONS] ID
  
  Positionals:
    ID                        The rule id (e.g. namespace.group-other-writable)
  
  Options:
    -h, --help                Print this help and exit
    --help-all                Print this help with every subcommand's options
    -f, --format json|text    json or text
  
  Exit status:
    0  shown
    2  usage error (also: an unknown rule id; the message names the nearest one)
  $ hsperfguard
  Usage: hsperfguard SUBCOMMAND [OPTIONS]
  
  Subcommands:
    audit                     Audit every hsperfdata namespace and report
    rules                     List the rule catalogue; `rules show ID` explains
                              one rule
    inspect                   Decode one backing file (a path or a pid)
    reap                      Remove stale and foreign hsperfdata files safely
                              (plan first, then act)
    ps                        List every JVM of the host, across users and
                              containers (without starting a JVM)
    create                    Create (or verify) a user's namespace, and
                              optionally a backing region for a pid
    repair                    Fix the findings that are safe to fix in place
                              (modes, ACLs, Windows DACLs; never an owner)
  
  Run `hsperfguard help SUBCOMMAND` for a subcommand's options, `hsperfguard
  --help` for all of this.
  [2]
