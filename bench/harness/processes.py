"""Running, timing and stopping the commands and children of the benchmark cases."""

import json
import os
import socket
import statistics
import subprocess
import time
import urllib.error
import urllib.request

# Processes still running that the harness must stop before it exits.
children = []
# What else must be undone before it exits (a PostgreSQL server that pg_ctl started): functions to call.
cleanups = []


class CaseFailure(Exception):
    """A benchmark case could not run (a command failed, a job failed, a server did not start)."""


def run(command, **kwargs):
    """Runs a command to completion; fails the case with its stderr if it exits non-zero."""
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise CaseFailure(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-600:]}")
    return result.stdout


def timed(command, **kwargs):
    """Wall time of one run of `command`, in seconds."""
    start = time.perf_counter()
    run(command, **kwargs)
    return time.perf_counter() - start


def sync_path(path):
    """fsyncs a file, or every file under a directory, and the directory holding it: what mediad does to
    each output before it reports it done (ffmpeg and cp leave theirs to the kernel's writeback)."""
    files = [path] if os.path.isfile(path) else [os.path.join(folder, name) for folder, _, names in os.walk(path)
                                                 for name in names]
    for name in files + [os.path.dirname(os.path.abspath(path))]:
        descriptor = os.open(name, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def timed_synced(command, path, **kwargs):
    """Wall time of one run of `command` plus the fsync of its output `path` (file or directory)."""
    start = time.perf_counter()
    run(command, **kwargs)
    sync_path(path)
    return time.perf_counter() - start


def busy_cores():
    """A reader of how many of the machine's cores were busy (not idle) since it was made, from /proc/stat."""
    def sample():
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
        return sum(fields), fields[3] + fields[4]  # idle + iowait

    total, idle = sample()

    def since():
        now_total, now_idle = sample()
        elapsed = now_total - total
        return os.cpu_count() * (1 - (now_idle - idle) / elapsed) if elapsed else 0.0

    return since


def timed_peak(command):
    """Wall time (seconds) and peak resident memory (KiB, from the kernel's rusage of that child) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    error = process.stderr.read().decode()
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise CaseFailure(f"{' '.join(command)} exited {os.waitstatus_to_exitcode(status)}: {error.strip()[-600:]}")
    return elapsed, usage.ru_maxrss


def median_time(action, runs, warmup=1):
    """Median wall time of `action` (a function returning seconds) after `warmup` untimed runs.

    Dirty pages are flushed (untimed) before each run, so no run pays for writing back the files of
    the one before it: mediad syncs its outputs and uploads, ffmpeg, cp and nginx do not.
    """
    for _ in range(warmup):
        action()
    times = []
    for _ in range(runs):
        os.sync()
        times.append(action())
    return statistics.median(times)


def start(command, **kwargs):
    """Starts a long-running child that `stop_all` will end."""
    process = subprocess.Popen(command, **kwargs)
    children.append(process)
    return process


def stop(process):
    """Ends one child started by `start`: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process in children:
        children.remove(process)


def stop_all():
    for process in list(children):
        stop(process)
    for cleanup in list(cleanups):
        cleanup()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def call(method, url, body=None, timeout=600):
    """A request with urllib; returns (status, parsed JSON or raw bytes)."""
    request = urllib.request.Request(url, data=body, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, data = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, data = error.code, error.read()
    try:
        return status, json.loads(data)
    except ValueError:
        return status, data


def wrk(url, duration):
    """Requests per second and p99 latency (as wrk prints it) of `wrk` on `url` for `duration` ("10s"), from
    2 threads and 32 connections; fails the case if any answer was not 2xx or a socket failed."""
    output = run(["wrk", "-t", "2", "-c", "32", "-d", duration, "--latency", url])
    if "Non-2xx" in output or "Socket errors" in output:
        raise CaseFailure(f"wrk saw errors for {url}: {output[-400:]}")
    rate = float(output.split("Requests/sec:")[1].split()[0])
    p99 = output.split(" 99%")[1].split()[0]
    return rate, p99


def memory_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise CaseFailure(f"no {field} for process {pid}")
