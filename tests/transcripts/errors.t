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
  hsperfguard: help: no subcommand 'nosuch'
  subcommands: audit, rules, inspect, reap, ps, create, repair (hsperfguard help SUBCOMMAND)
  [2]
  $ hsperfguard audit --colour never
  hsperfguard audit: unknown option --colour; did you mean --color?
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard reap -n
  reap plan (dry run, nothing is changed)
  temp dir /tmp (this host's)
  
  plan: 0 item(s): 0 to remove, 0 to keep, 0 skipped
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
  hsperfguard: audit: --format needs one of json, text: got 'xml'
  [2]
  $ hsperfguard audit --fail-on hihg
  hsperfguard: audit: --fail-on needs one of info, low, medium, high, critical: got 'hihg'; did you mean 'high'?
  [2]
  $ hsperfguard audit --profile paranoid
  hsperfguard: audit: --profile needs one of default, hotspot, strict: got 'paranoid'
  [2]
  $ hsperfguard audit --color sometimes
  hsperfguard: audit: --color needs one of auto, always, never: got 'sometimes'
  [2]
  $ hsperfguard audit --max-runtime soon
  hsperfguard: audit: --max-runtime needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): got 'soon'
  [2]
  $ hsperfguard audit --every 500ms
  hsperfguard: audit: --every needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): got '500ms', which is less than 1s (the least --every takes)
  [2]
  $ hsperfguard reap --min-age
  hsperfguard: reap: --min-age needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): none given
  [2]
  $ hsperfguard reap --min-age 3651d --dry-run
  hsperfguard: reap: --min-age needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): got '3651d'
  [2]
  $ hsperfguard reap --min-age -5s --dry-run
  hsperfguard: reap: --min-age needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): got '-5s'
  [2]
  $ hsperfguard ps --container abc
  hsperfguard: ps: --container needs a PID (a process id: a whole number from 1): got 'abc'
  [2]
  $ hsperfguard ps --container 1.5
  hsperfguard: ps: --container needs a PID (a process id: a whole number from 1): got '1.5'
  [2]
  $ hsperfguard create --user root --mode 0777
  hsperfguard: create: --mode needs one of 0755, 755, 0700, 700: got '0777'; did you mean '0755'?
  [2]
  $ hsperfguard create --user root --size 4096
  hsperfguard: create: --size needs a number of BYTES (plain decimal, e.g. 32768): got '4096', which equires --pid
  [2]
  $ hsperfguard create --user root --pid 0 --tmpdir /tmp
  hsperfguard: create: --pid must be a positive process id
  [2]
  $ hsperfguard inspect --format yaml 1
  hsperfguard: inspect: --format needs one of snap, json, text: got 'yaml'
  [2]
  $ hsperfguard audit --log-format xml
  hsperfguard: audit: --log-format needs one of text, json: got 'xml'
  [2]

Options that exclude each other, and required ones:

  $ hsperfguard audit --tmpdir /tmp --root /
  hsperfguard: audit: --tmpdir needs a DIR (an existing directory): got '/tmp', which xcludes --root
  [2]
  $ hsperfguard audit --no-containers --container 1
  hsperfguard audit: --no-containers excludes --container
  Run `hsperfguard audit --help` for its options.
  [2]
  $ hsperfguard reap --dry-run --lock-file /tmp/l --no-lock
  hsperfguard: reap: --lock-file needs a FILE name: got '/tmp/l', which xcludes --no-lock
  [2]
  $ hsperfguard repair --tmpdir /tmp --root /
  hsperfguard: repair: --tmpdir needs a DIR (an existing directory): got '/tmp', which xcludes --root
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
  hsperfguard: audit: --tmpdir needs a DIR (an existing directory): got '/nonexistent', which does not exist
  [2]
  $ hsperfguard audit --tmpdir /etc/passwd
  hsperfguard: audit: --tmpdir needs a DIR (an existing directory): got '/etc/passwd', which is not a directory
  [2]
  $ hsperfguard audit --root /nonexistent
  hsperfguard: audit: --root needs a DIR (an existing directory): got '/nonexistent', which does not exist
  [2]
  $ hsperfguard audit --policy /nonexistent.json
  hsperfguard: audit: --policy /nonexistent.json: does not exist
  [2]
  $ printf '{"rules": {"file.stail": {"severity": "high"}}}' >/tmp/policy.json
  $ hsperfguard audit --tmpdir /tmp --policy /tmp/policy.json
  hsperfguard: audit: --policy /tmp/policy.json: unknown rule id "file.stail"; did you mean "file.stale"? (`hsperfguard rules` lists the known ids)
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
  hsperfguard: inspect: exit 3: could not read the file or the process's mapping
  [3]
  $ hsperfguard ps --container 99999
  hsperfguard: ps: --container 99999: no such process
  [2]
  $ hsperfguard audit --container 99999
  hsperfguard: audit: --container 99999: no such process
  [2]
  $ hsperfguard reap --dry-run --container 99999
  hsperfguard: reap: --container 99999: no such process
  [2]
