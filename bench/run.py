#!/usr/bin/env python3
"""mediad against the ffmpeg CLI, cp and nginx (and its PostgreSQL mode against its filesystem store),
measured side by side in one run.

Generates its media with the ffmpeg CLI into bench/media/ (gitignored), runs every case after a warm-up
several times, and prints a Markdown table of medians and of ratios taken in the same run on the same
files; absolute times vary between machines, the ratios are what to compare. The full run writes the
table to bench/results/<date>.md.

  bench/run.py --bin-dir .build/release            # the full benchmark (make bench)
  bench/run.py --bin-dir .build/debug --smoke      # seconds-long, tiny inputs, no targets (make bench-smoke)

Every mediad server, nginx and PostgreSQL the harness starts is stopped when it ends, on success, failure or
Ctrl-C. Servers listen on loopback only, on ports the kernel picks.
"""

# The cases live in bench/cases/ (a module per case or family), what they share in bench/harness/.

import argparse
import datetime
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from cases import Bench
from harness import servers
from harness.media import MEDIA, ROOT, Media
from harness.processes import run, stop_all
from harness.report import Report

RESULTS = os.path.join(ROOT, "bench", "results")


def describe_machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = int(open("/proc/meminfo").readline().split()[1]) / (1 << 20)
    load = os.getloadavg()[0]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    ffmpeg = run(["ffmpeg", "-version"]).split("\n")[0]
    nginx = subprocess.run([servers.NGINX, "-v"], capture_output=True, text=True).stderr.strip()
    return (f"{os.cpu_count()} × {model}, {memory:.0f} GiB; load average {load:.2f} at the start; "
            f"mediad {commit}; {ffmpeg}; {nginx}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True, help="where mediad and mediad-bench were built")
    parser.add_argument("--nginx", default="nginx", help="the nginx binary to compare with (default: from PATH)")
    parser.add_argument("--smoke", action="store_true", help="tiny inputs, one run each, no targets")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement (after one warm-up)")
    parser.add_argument("--note", default="", help="a line for the results file (e.g. what else ran)")
    parser.add_argument("--cases", default="remux,package,encode,upload,end_to_end,small_jobs,scaling,status_api,"
                                            "transcode,thumbnails,loudness,ladder,database,objects,objects_staging",
                        help="comma-separated subset of the cases")
    arguments = parser.parse_args()
    servers.NGINX = arguments.nginx

    # SIGTERM (make interrupted, a CI timeout) unwinds like Ctrl-C so the finally below stops every child.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    scratch = tempfile.mkdtemp(prefix="run-", dir=os.makedirs(MEDIA, exist_ok=True) or MEDIA)
    report = Report(arguments.smoke)
    began = time.time()
    try:
        machine = describe_machine()
        media = Media(arguments.smoke)
        print("making media (first run only)…", flush=True)
        media.prepare()
        bench = Bench(arguments, media, report, scratch)
        for case in arguments.cases.split(","):
            print(f"{case}:", flush=True)
            getattr(bench, case)()
    finally:
        stop_all()
        shutil.rmtree(scratch, ignore_errors=True)

    mode = "smoke run (tiny inputs, one run, targets not judged)" if arguments.smoke else \
        f"median of {arguments.runs} runs after one warm-up"
    text = "\n".join([
        f"# mediad benchmarks, {datetime.date.today().isoformat()}", "",
        f"Machine: {machine}.", f"Mode: {mode}; took {time.time() - began:.0f} s.",
        *([f"Note: {arguments.note}"] if arguments.note else []), "",
        "Ratio is mediad ÷ the other for times, and mediad's rate ÷ the other's for rates; both columns were",
        "measured in the same run on the same files.", "", report.markdown(), ""])
    print("\n" + text)
    if not arguments.smoke:
        os.makedirs(RESULTS, exist_ok=True)
        path = os.path.join(RESULTS, datetime.date.today().isoformat() + ".md")
        with open(path, "w") as file:
            file.write(text)
        print(f"written to {os.path.relpath(path, ROOT)}")
    if report.failures:
        print(f"{len(report.failures)} case(s) failed: {', '.join(report.failures)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
