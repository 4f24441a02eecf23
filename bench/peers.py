#!/usr/bin/env python3
"""The peer table of the performance issue, from one run: every tool on identical fresh trees,
alternating, several rounds; medians, spread (min-max) and hsperfguard's ratio to each peer.

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
  --ps         also run bench/ps_bench.sh (10 JVMs, 4 on the host and 6 in 3 containers)

Figures: reap (hsperfguard reap --min-age 1s vs systemd-tmpfiles --clean with the same 1 s
age rule vs find -type f -delete), audit (hsperfguard audit, JSON report written beside the
tree, vs find -printf '%m %U %s\\n'), the audit's peak RSS, and the decode of one 32 KiB JDK 17
region (bench_parse, parse_region). Run as root: the trees have several owners.
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
    for path in (tool, gen, parse):
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
    times = {name: [] for name in list(reap_tools) + list(audit_tools)}
    rss_kib = []
    total = args.namespaces * args.files
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}; machine: {os.cpu_count()} CPUs, "
          f"{platform.system()} {platform.release()}")
    fs = subprocess.run(["stat", "-f", "-c", "%T", work], capture_output=True, text=True).stdout.strip()
    print(f"trees in {work} ({fs}): {args.namespaces} namespaces x {args.files} stale regions = {total} files; "
          f"{args.runs} rounds, tools alternating; {'written back' if args.sync else 'page cache warm'}")
    for round_ in range(args.runs):
        names = list(reap_tools)
        names = names[round_ % len(names):] + names[:round_ % len(names)]
        for name in names:
            fresh_tree()
            times[name].append(run_timed(reap_tools[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                               if name != "hsperfguard reap" else
                               run_timed(reap_tools[name], stdout=subprocess.DEVNULL))
            left = remaining()
            if left:
                print(f"  round {round_ + 1}: {name} left {left} of {total} files", file=sys.stderr)
        fresh_tree()
        names = list(audit_tools)
        if round_ % 2:
            names.reverse()
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
            else:
                times[name].append(run_timed(audit_tools[name], stdout=subprocess.DEVNULL))
    shutil.rmtree(tree, ignore_errors=True)

    decode = subprocess.run([parse, "--benchmark_filter=^parse_region/", "--benchmark_format=json",
                             "--benchmark_min_time=0.5", "--benchmark_repetitions=3"],
                            capture_output=True, text=True, check=True)
    decode_ns = [b["real_time"] for b in json.loads(decode.stdout)["benchmarks"] if b.get("run_type") == "iteration"]

    def ratio(a, b):
        return statistics.median(times[a]) / statistics.median(times[b])

    print()
    print(f"{'figure':<34} {'median (min-max)':<26} ratio / goal")
    for name in reap_tools:
        print(f"  reap: {name:<27} {fmt(times[name]):<26}")
    print(f"  reap vs systemd-tmpfiles{'':<9} {'':<26} {ratio('hsperfguard reap', 'systemd-tmpfiles --clean'):.2f}x"
          "  (goal <= 1.0x)")
    print(f"  reap vs find -delete{'':<13} {'':<26} {ratio('hsperfguard reap', 'find -delete'):.2f}x"
          "  (goal <= 1.2x on tmpfs, <= 1.0x on disk)")
    for name in audit_tools:
        print(f"  audit: {name:<26} {fmt(times[name]):<26}")
    print(f"  audit vs find -printf{'':<12} {'':<26} {ratio('hsperfguard audit', 'find -printf'):.2f}x"
          "  (goal <= 2x)")
    print(f"  audit peak RSS{'':<19} {statistics.median(rss_kib) / 1024:.1f} MiB"
          f" ({min(rss_kib) / 1024:.1f}-{max(rss_kib) / 1024:.1f}){'':<6} (goal < 20 MB)")
    print(f"  decode one region (parse_region){'':<1} {fmt(decode_ns, 'us', 1e-3):<26} (goal < 3 us)")
    if made_dir:
        shutil.rmtree(work, ignore_errors=True)
    if args.ps:
        print()
        subprocess.run(["bash", os.path.join(root, "bench", "ps_bench.sh")], check=True,
                       env=dict(os.environ, HSPERFGUARD_BUILD_DIR=build))


if __name__ == "__main__":
    main()
