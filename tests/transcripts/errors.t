Usage errors, unknown ids and bad values: each names what was wrong and exits 2 (a missing
process or file: as the subcommand's help says). The host is empty but for one namespace.

  $ . "$TESTDIR/setup.sh"
  $ mkdir -m 0755 /tmp/hsperfdata_root

Subcommands and options that do not exist:

  $ hsperfguard audi
  hsperfguard: unknown subcommand 'audi'; did you mean 'audit'?
  subcommands: audit, rules, inspect, reap, ps, create, repair (hsperfguard help SUBCOMMAND)
  [2]
  $ hsperfguard help nosuch
  hsperfguard: unknown subcommand 'nosuch'
  subcommands: audit, rules, inspect, reap, ps, create, repair (hsperfguard help SUBCOMMAND)
  [2]
  $ hsperfguard audit --colour never
  hsperfguard audit: unknown option --colour; did you mean --color?
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard reap -n
  hsperfguard reap: unknown option -n; did you mean -h?
  Run `hsperfguard reap --help` for its options.
  [2]
  $ hsperfguard rules show
  hsperfguard rules: ID is required
  Run `hsperfguard rules --help` for its options.
  [2]
  $ hsperfguard rules show namespace.group-other-writeable
  hsperfguard: rules show: no rule "namespace.group-other-writeable"; did you mean namespace.group-other-writable? (`hsperfguard rules` lists every id)
  [2]
  $ hsperfguard rules show nosuch.rule --format json
  hsperfguard: rules show: no rule "nosuch.rule" (`hsperfguard rules` lists every id)
  [2]

Values an option does not take:

  $ hsperfguard audit --format xml
  hsperfguard audit: --format: xml not in {json,text}
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --fail-on hihg
  hsperfguard audit: --fail-on: hihg not in {info,low,medium,high,critical}
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --profile paranoid
  hsperfguard audit: --profile: paranoid not in {default,hotspot,strict}
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --color sometimes
  hsperfguard audit: --color: sometimes not in {auto,always,never}
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --max-runtime soon
  hsperfguard audit: --max-runtime: not a duration of at most 3650d (90, 500ms, 90s, 15m, 2h, 1d): soon
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --every 500ms
  hsperfguard audit: --every: --every is at least 1s: 500ms
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard reap --min-age
  hsperfguard reap: --min-age: 1 required TEXT:DURATION missing
  Run `hsperfguard reap --help` for its options.
  [2]
  $ hsperfguard reap --min-age 3651d --dry-run
  hsperfguard reap: --min-age: not a duration of at most 3650d (90, 500ms, 90s, 15m, 2h, 1d): 3651d
  Run `hsperfguard reap --help` for its options.
  [2]
  $ hsperfguard reap --min-age -5s --dry-run
  hsperfguard reap: --min-age: not a duration of at most 3650d (90, 500ms, 90s, 15m, 2h, 1d): -5s
  Run `hsperfguard reap --help` for its options.
  [2]
  $ hsperfguard ps --container abc
  hsperfguard ps: --container: Value abc not in range 0.000000 to 179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368.000000
  Run `hsperfguard ps --help` for its options.
  [2]
  $ hsperfguard ps --container 1.5
  hsperfguard ps: Could not convert: --container = 1.5
  Run `hsperfguard ps --help` for its options.
  [2]
  $ hsperfguard create --user root --mode 0777
  hsperfguard create: --mode: 0777 not in {0755,755,0700,700}
  Run `hsperfguard create --help` for its options.
  [2]
  $ hsperfguard create --user root --size 4096
  hsperfguard create: --size requires --pid
  Run `hsperfguard create --help` for its options.
  [2]
  $ hsperfguard create --user root --pid 0 --tmpdir /tmp
  hsperfguard: create: --pid must be a positive process id
  [2]
  $ hsperfguard inspect --format yaml 1
  hsperfguard inspect: --format: yaml not in {snap,json,text}
  Run `hsperfguard inspect --help` for its options.
  [2]
  $ hsperfguard audit --log-format xml
  hsperfguard audit: --log-format: xml not in {text,json}
  Run `hsperfguard audit --help` for its options.
  [2]

Options that exclude each other, and required ones:

  $ hsperfguard audit --tmpdir /tmp --root /
  hsperfguard audit: --tmpdir excludes --root
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --no-containers --container 1
  hsperfguard audit: --no-containers excludes --container
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard reap --dry-run --lock-file /tmp/l --no-lock
  hsperfguard reap: --lock-file excludes --no-lock
  Run `hsperfguard reap --help` for its options.
  [2]
  $ hsperfguard repair --tmpdir /tmp --root /
  hsperfguard repair: --tmpdir excludes --root
  Run `hsperfguard repair --help` for its options.
  [2]
  $ hsperfguard create
  hsperfguard create: --user is required
  Run `hsperfguard create --help` for its options.
  [2]
  $ hsperfguard inspect
  hsperfguard inspect: target is required
  Run `hsperfguard inspect --help` for its options.
  [2]

Paths, users, processes and policies that do not exist or do not fit:

  $ hsperfguard audit --tmpdir /nonexistent
  hsperfguard audit: --tmpdir: /nonexistent: does not exist
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --tmpdir /etc/passwd
  hsperfguard audit: --tmpdir: /etc/passwd: is not a directory
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --root /nonexistent
  hsperfguard audit: --root: /nonexistent: does not exist
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard audit --policy /nonexistent.json
  hsperfguard: audit: --policy /nonexistent.json: does not exist
  [2]
  $ printf '{"rules": {"file.stail": {"severity": "high"}}}' >/tmp/policy.json
  $ hsperfguard audit --tmpdir /tmp --policy /tmp/policy.json
  hsperfguard: audit: --policy /tmp/policy.json: unknown rule id "file.stail" (`hsperfguard rules` lists the known ids)
  [2]
  $ printf 'not json' >/tmp/policy.json
  $ hsperfguard audit --tmpdir /tmp --policy /tmp/policy.json
  hsperfguard: audit: --policy /tmp/policy.json: not valid JSON at line 1, column 2: syntax error while parsing value - invalid literal; last read: 'no'
  [2]
  $ hsperfguard create --user nosuchuser --tmpdir /tmp
  hsperfguard: create: no such user: nosuchuser
  [2]
  $ hsperfguard inspect /nonexistent
  hsperfguard: inspect: /nonexistent: does not exist
  [2]
  $ hsperfguard inspect 99999
  hsperfguard: inspect: no process 99999, and no backing file named 99999 under /tmp/hsperfdata_*
  [3]
  $ hsperfguard ps --container 99999
  HOST-PID  NS-PID  USER  STATE  UPTIME  CONTAINER  VERSION  MAIN
  hsperfguard: ps: 2 things could not be observed (first: /proc/99999: open: No such file or directory)
  [3]
  $ hsperfguard audit --container 99999
  temp dir /proc/99999/root/tmp (a container's, host pid 99999)
    [low] tmpdir.observation-error: temp dir /proc/99999/root/tmp could not be observed completely (1 error, first: open: No such file or directory)
        fix: Read the errors in the evidence; run the audit with enough privilege to read the temp dir (usually root), or fix the underlying I/O problem.
    error: /proc/99999/root: open: No such file or directory
    0 namespace(s) in /proc/99999/root/tmp
  
  summary
    findings  1 finding(s): 1 low
    errors    2 (what could not be observed); the first: /proc/99999/root: open: No such file or directory
    next      hsperfguard rules show tmpdir.observation-error   what the worst finding means and how to fix it
              hsperfguard audit --verbose --container 99999   every finding with its evidence
  0 namespace(s), 0 file(s), 0 attach file(s) in 1 temp dir, 0 JVM process(es) looked at; INCOMPLETE: some temp dirs or processes could not be observed (exit 3)
  hsperfguard: audit: /proc/99999/root: open: No such file or directory
  hsperfguard: audit: /proc/99999: open: No such file or directory
  [3]
  $ hsperfguard reap --dry-run --container 99999
  reap plan (dry run, nothing is changed)
  temp dir /proc/99999/root/tmp (a container's, host pid 99999)  left alone: its temp dir could not be observed
    error: /proc/99999/root: open: No such file or directory
    error: /proc/99999: open: No such file or directory
  
  plan: 0 item(s): 0 to remove, 0 to keep, 0 skipped
  INCOMPLETE: some temp dirs could not be observed, or the run stopped early
  hsperfguard: reap: /proc/99999/root: open: No such file or directory
  hsperfguard: reap: /proc/99999: open: No such file or directory
  [3]
