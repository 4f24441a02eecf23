#!/usr/bin/env python3
"""The performance table, from one run: every figure a ratio to its own floor or peer, taken on
identical fresh trees, the tools alternating, several rounds; medians, spread (min-max).

  bench/peers.py [--build DIR] [--dir DIR] [--namespaces N] [--files M] [--runs R]
                 [--owners UID,...] [--sync] [--ps]

  --build DIR  a Release build with hsperfguard, bench/bench_gen_tree and bench/bench_parse
               (cmake -DHSPERFGUARD_BENCH=ON; default build-release/)
  --dir DIR    where the trees are made; its file system is what is measured (run it once on
               a tmpfs such as /dev/shm and once on the disk /tmp lives on). Default: a new
               directory under /tmp.
  --runs R     rounds (default 3); in each round the tools run in a rotated order, each on a
               tree generated for it (reap) or on the round's tree (audit)
  --sync       write each tree back to disk before it is timed (default: the page cache is
               warm, the files not yet written back)
  --ps         also run bench/ps_bench.sh (10 JVMs, 4 on the host and 6 in 3 containers) for
               the ps row

Rows, each with its goal (the performance issue's table):
  audit / floor        hsperfguard audit (JSON report written beside the tree) against the calls
                       its checks need, alone, on the same tree in the same round
                       (bench_reap_protocol --tree TREE --modes read: list, lstat, then per file
                       openat2 beneath, statx, the ACL probe, a 16 KiB read, close)     <= 1.1x
  audit / find         against find -printf '%m %U %s\\n' on the same tree              <= 2x
  audit peak RSS                                                                        < 20 MB
  reap / tmpfiles      hsperfguard reap --min-age 1s against systemd-tmpfiles --clean with
                       the same 1 s age rule, each on a fresh identical tree           <= 1.0x
  reap / find -delete  against find -type f -delete        (on disk: stay below both) (report)
  reap / protocol      against the removal protocol's calls alone on an identical tree
                       (bench_reap_protocol --tree TREE --modes protocol: list, lstat, then per
                       file open, statx, flock, statx by name, unlinkat, statx, close)   (report)
  protocol / tmpfiles  that floor against systemd-tmpfiles --clean: what the reap/tmpfiles
                       goal asks of the protocol alone                                   (report)
  start / true         hsperfguard --version against /bin/true (bench_start_time: posix_spawn,
                       the two alternating run by run, 500 runs)                       <= 1.5x
  decode / floor       parse_region of the JDK 17 region against decode_floor (a copy of its
                       used bytes and one pass over its entry headers; bench_parse)   <= 2x
  ps / floor           (--ps) hsperfguard ps --format json against bench_ps_floor, 10 JVMs
                                                                                       <= 1.25x
Run as root: the trees have several owners.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run_timed(cmd, **kwargs):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, **kwargs)
    return time.perf_counter() - start


def summary(values):
    return statistics.median(values), min(values), max(values)


def fmt(values, unit="s", scale=1.0):
    med, lo, hi = summary([v * scale for v in values])
    return f"{med:.3f} {unit} ({lo:.3f}-{hi:.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build-release")
    parser.add_argument("--dir")
    parser.add_argument("--namespaces", type=int, default=100)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--owners", default="65534,1,2,3")
    parser.add_argument("--ps", action="store_true")
    parser.add_argument("--sync", action="store_true")
    args = parser.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.abspath(os.path.join(root, args.build) if not os.path.isabs(args.build) else args.build)
    tool = os.path.join(build, "hsperfguard")
    gen = os.path.join(build, "bench", "bench_gen_tree")
    parse = os.path.join(build, "bench", "bench_parse")
    protocol = os.path.join(build, "bench", "bench_reap_protocol")
    start_time = os.path.join(build, "bench", "bench_start_time")
    for path in (tool, gen, parse, protocol, start_time):
        if not os.access(path, os.X_OK):
            sys.exit(f"peers: {path} is missing: build {build} with -DHSPERFGUARD_BENCH=ON first")
    for needed in ("systemd-tmpfiles", "find", "/usr/bin/time"):
        if shutil.which(needed) is None:
            sys.exit(f"peers: {needed} is needed")

    made_dir = args.dir is None
    work = tempfile.mkdtemp(prefix="hsperfguard-peers.", dir="/tmp") if made_dir else os.path.abspath(args.dir)
    os.makedirs(work, exist_ok=True)
    tree = os.path.join(work, "tree")
    conf = os.path.join(work, "tmpfiles.conf")
    report = os.path.join(work, "audit.json")
    with open(conf, "w") as out:
        out.write(f"e {tree}/hsperfdata_* - - - 1s\n")

    def fresh_tree():
        shutil.rmtree(tree, ignore_errors=True)
        subprocess.run([gen, "--out", tree, "--namespaces", str(args.namespaces), "--files", str(args.files),
                        "--owners", args.owners], check=True, stdout=subprocess.DEVNULL)
        if args.sync:
            os.sync()  # written back, as a crash's stale files are on disk (slow on large trees)
        time.sleep(2)  # older than every tool's 1 s age limit

    def remaining():
        return sum(len(files) for _, _, files in os.walk(tree))

    reap_tools = {
        "hsperfguard reap": [tool, "reap", "--tmpdir", tree, "--min-age", "1s", "--no-lock", "--format", "json",
                             "--output", os.path.join(work, "reap.json")],
        "systemd-tmpfiles --clean": ["systemd-tmpfiles", "--clean", conf],
        "find -delete": ["find", tree, "-type", "f", "-delete"],
    }
    audit_tools = {
        "hsperfguard audit": [tool, "audit", "--tmpdir", tree, "--no-containers", "--format", "json",
                              "--output", report],
        "find -printf": ["find", tree, "-printf", "%m %U %s\\n"],
    }
    reap_names = list(reap_tools) + ["reap protocol floor"]
    times = {name: [] for name in reap_names + list(audit_tools) + ["audit floor"]}
    rss_kib = []
    total = args.namespaces * args.files
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}; machine: {os.cpu_count()} CPUs, "
          f"{platform.system()} {platform.release()}")
    fs = subprocess.run(["stat", "-f", "-c", "%T", work], capture_output=True, text=True).stdout.strip()
    print(f"trees in {work} ({fs}): {args.namespaces} namespaces x {args.files} stale regions = {total} files; "
          f"{args.runs} rounds, tools alternating; {'written back' if args.sync else 'page cache warm'}")
    for round_ in range(args.runs):
        names = list(reap_names)
        names = names[round_ % len(names):] + names[:round_ % len(names)]
        for name in names:
            fresh_tree()
            if name == "reap protocol floor":
                # Its own timing of the protocol's calls alone (no process start).
                floor = subprocess.run([protocol, "--tree", tree, "--modes", "protocol", "--runs", "1"],
                                       capture_output=True, text=True, check=True).stdout
                times[name].append(next(float(line.split()[1]) for line in floor.splitlines()
                                        if line.startswith("protocol ")))
            elif name == "hsperfguard reap":
                times[name].append(run_timed(reap_tools[name], stdout=subprocess.DEVNULL))
            else:
                times[name].append(run_timed(reap_tools[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            left = remaining()
            if left:
                print(f"  round {round_ + 1}: {name} left {left} of {total} files", file=sys.stderr)
        fresh_tree()
        # The audit, find and the audit's floor on the round's tree, in an order rotated each
        # round (the first to run meets the coldest caches).
        names = list(audit_tools) + ["audit floor"]
        names = names[round_ % len(names):] + names[:round_ % len(names)]
        for name in names:
            if name == "hsperfguard audit":
                start = time.perf_counter()
                done = subprocess.run(["/usr/bin/time", "-f", "%M"] + audit_tools[name], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
                times[name].append(time.perf_counter() - start)
                rss_kib.append(int(done.stderr.strip().splitlines()[-1]))
                # 0 clean, 1 findings: both are a finished audit.
                if done.returncode not in (0, 1):
                    sys.exit(f"peers: audit exited {done.returncode}")
            elif name == "audit floor":
                # Its own timing of the calls alone (no process start, as the audit's has).
                floor = subprocess.run([protocol, "--tree", tree, "--modes", "read", "--runs", "1"],
                                       capture_output=True, text=True, check=True).stdout
                times[name].append(next(float(line.split()[1]) for line in floor.splitlines()
                                        if line.startswith("read ")))
            else:
                times[name].append(run_timed(audit_tools[name], stdout=subprocess.DEVNULL))
    shutil.rmtree(tree, ignore_errors=True)

    start = subprocess.run([start_time, "--runs", "500", "--warmup", "20", f"{tool} --version", "/bin/true"],
                           capture_output=True, text=True, check=True).stdout
    start_rows = [line for line in start.splitlines() if not line.startswith("ratio ")]
    start_ratio = float(next(line.split()[2] for line in start.splitlines() if line.startswith("ratio 0 ")))

    decode = subprocess.run([parse, "--benchmark_filter=^(parse_region|decode_floor)/", "--benchmark_format=json",
                             "--benchmark_min_time=0.5", "--benchmark_repetitions=5"],
                            capture_output=True, text=True, check=True)
    decode_runs = [b for b in json.loads(decode.stdout)["benchmarks"] if b.get("run_type") == "iteration"]
    decode_ns = [b["real_time"] for b in decode_runs if b["name"].startswith("parse_region/")]
    decode_floor_ns = [b["real_time"] for b in decode_runs if b["name"].startswith("decode_floor/")]

    def ratio(a, b):
        return statistics.median(times[a]) / statistics.median(times[b])

    rows = []  # (figure, ratio or value, goal text, met)

    def row(figure, value, goal, met, unit="x"):
        rows.append((figure, f"{value:.2f}{unit}", goal, "met" if met else "NOT MET"))

    print()
    print(f"{'measured':<34} median (min-max)")
    for name in reap_names:
        print(f"  reap: {name:<27} {fmt(times[name])}")
    for name in list(audit_tools) + ["audit floor"]:
        print(f"  audit: {name:<26} {fmt(times[name])}")
    print(f"  audit peak RSS{'':<19} {statistics.median(rss_kib) / 1024:.1f} MiB"
          f" ({min(rss_kib) / 1024:.1f}-{max(rss_kib) / 1024:.1f})")
    print(f"  decode: parse_region{'':<13} {fmt(decode_ns, 'us', 1e-3)}")
    print(f"  decode: decode_floor{'':<13} {fmt(decode_floor_ns, 'us', 1e-3)}")
    for line in start_rows[1:]:
        print(f"  start: {line}")

    audit_floor = ratio("hsperfguard audit", "audit floor")
    audit_find = ratio("hsperfguard audit", "find -printf")
    reap_tmpfiles = ratio("hsperfguard reap", "systemd-tmpfiles --clean")
    reap_find = ratio("hsperfguard reap", "find -delete")
    reap_protocol = ratio("hsperfguard reap", "reap protocol floor")
    protocol_tmpfiles = ratio("reap protocol floor", "systemd-tmpfiles --clean")
    rss_mb = statistics.median(rss_kib) * 1024 / 1e6
    decode_ratio = statistics.median(decode_ns) / statistics.median(decode_floor_ns)
    row("audit / its floor", audit_floor, "<= 1.1x", audit_floor <= 1.1)
    row("audit / find -printf", audit_find, "<= 2x", audit_find <= 2.0)
    row("audit peak RSS", rss_mb, "< 20 MB", rss_mb < 20, " MB")
    row("reap / systemd-tmpfiles --clean", reap_tmpfiles, "<= 1.0x" if fs == "tmpfs" else "< 1.0x",
        reap_tmpfiles <= 1.0 if fs == "tmpfs" else reap_tmpfiles < 1.0)
    row("reap / find -delete", reap_find, "(report)" if fs == "tmpfs" else "< 1.0x",
        True if fs == "tmpfs" else reap_find < 1.0)
    row("reap / its protocol floor", reap_protocol, "(report)", True)
    row("protocol floor / tmpfiles", protocol_tmpfiles, "(report)", True)
    row("--version / /bin/true", start_ratio, "<= 1.5x", start_ratio <= 1.5)
    row("parse_region / decode_floor", decode_ratio, "<= 2x", decode_ratio <= 2.0)
    if args.ps:
        print()
        ps = subprocess.run(["bash", os.path.join(root, "bench", "ps_bench.sh")], check=True, capture_output=True,
                            text=True, env=dict(os.environ, HSPERFGUARD_BUILD_DIR=build))
        print(ps.stdout, end="")
        ps_ratio = float(next(line.split()[1] for line in ps.stdout.splitlines() if line.startswith("ps/floor ")))
        row("ps (10 JVMs) / bench_ps_floor", ps_ratio, "<= 1.25x", ps_ratio <= 1.25)
    print()
    print(f"{'ratio':<34} {'value':>9}  {'goal':<9} verdict")
    for figure, value, goal, verdict in rows:
        print(f"  {figure:<32} {value:>9}  {goal:<9} {verdict}")
    if made_dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
