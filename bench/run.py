#!/usr/bin/env python3
"""mediad against the ffmpeg CLI, cp and nginx, measured side by side in one run.

Generates its media with the ffmpeg CLI into bench/media/ (gitignored), runs every case after a warm-up
several times, and prints a Markdown table of medians and of ratios taken in the same run on the same
files; absolute times vary between machines, the ratios are what to compare. The full run writes the
table to bench/results/<date>.md.

  bench/run.py --bin-dir .build/release            # the full benchmark (make bench)
  bench/run.py --bin-dir .build/debug --smoke      # seconds-long, tiny inputs, no targets (make bench-smoke)

Every mediad server and nginx the harness starts is killed when it ends, on success, failure or Ctrl-C.
Servers listen on loopback only, on ports the kernel picks.
"""

import argparse
import datetime
import http.client
import json
import math
import os
import pwd
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDIA = os.path.join(ROOT, "bench", "media")
RESULTS = os.path.join(ROOT, "bench", "results")
MB = 1_000_000
MIB = 1 << 20
## The nginx binary (`--nginx`); `make bench` passes Debian's nginx unpacked under .build, never installed.
NGINX = "nginx"

# Processes still running that the harness must stop before it exits.
children = []


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


def memory_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise CaseFailure(f"no {field} for process {pid}")


class Server:
    """A real `mediad serve` on a free loopback port with its own data directory."""

    def __init__(self, binary, scratch, *arguments):
        self.data = tempfile.mkdtemp(prefix="server-", dir=scratch)
        self.process = start(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", self.data, *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line.strip().rsplit(":", 1)[-1].isdigit():
            stop(self.process)
            raise CaseFailure(f"mediad serve did not start: {line!r}")
        self.base = "http://127.0.0.1:" + line.strip().rsplit(":", 1)[-1]

    @property
    def pid(self):
        return self.process.pid

    def url(self, path):
        return self.base + path

    def close(self):
        stop(self.process)
        shutil.rmtree(self.data, ignore_errors=True)


class Nginx:
    """nginx on a free loopback port, as the current user, with its config and files in a temp dir.

    PUT /upload/<name> writes the request body to disk (the dav module: body to a temp file, then
    renamed); everything else is served statically from <dir>/www.
    """

    def __init__(self, scratch):
        self.dir = tempfile.mkdtemp(prefix="nginx-", dir=scratch)
        self.www = os.path.join(self.dir, "www")
        os.makedirs(os.path.join(self.www, "upload"))
        self.port = free_port()
        # As root, nginx would hand its workers to "nobody", who cannot write here: keep the current user.
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
        config = f"""
{user}
worker_processes 2;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    proxy_temp_path {self.dir}/proxy;
    fastcgi_temp_path {self.dir}/fastcgi;
    uwsgi_temp_path {self.dir}/uwsgi;
    scgi_temp_path {self.dir}/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{self.port};
        root {self.www};
        default_type application/json;
        location /upload/ {{
            dav_methods PUT;
            client_max_body_size 0;
            client_body_buffer_size 1m;
        }}
    }}
}}
"""
        path = os.path.join(self.dir, "nginx.conf")
        with open(path, "w") as file:
            file.write(config)
        self.process = start([NGINX, "-p", self.dir, "-c", path, "-e", os.path.join(self.dir, "error.log")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    error = self.process.stderr.read().decode() if self.process.poll() is not None else ""
                    stop(self.process)
                    raise CaseFailure(f"nginx did not start: {error.strip()}")
                time.sleep(0.05)
        self.base = f"http://127.0.0.1:{self.port}"

    def close(self):
        stop(self.process)
        shutil.rmtree(self.dir, ignore_errors=True)


def submit_jobs(server, body, jobs, clients=4):
    """Posts `jobs` remux jobs of `body` from `clients` keep-alive connections, each waiting for its job to
    end; the wall time of them all, in seconds."""
    errors = []
    remaining = iter(range(jobs))
    lock = threading.Lock()

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", int(server.base.rsplit(":", 1)[1]), timeout=120)
        while True:
            with lock:
                if next(remaining, None) is None or errors:
                    break
            connection.request("POST", "/jobs/remux?format=mp4&wait=60", body=body)
            response = connection.getresponse()
            data = response.read()
            if response.status != 200 or json.loads(data)["state"] != "succeeded":
                errors.append(f"{response.status}: {data[:300]!r}")
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start_time = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise CaseFailure(errors[0])
    return time.perf_counter() - start_time


# ---------------------------------------------------------------------------------------------- media


class Media:
    """The inputs, made once with the ffmpeg CLI and kept in bench/media/ between runs."""

    def __init__(self, smoke):
        self.smoke = smoke
        os.makedirs(MEDIA, exist_ok=True)

    def path(self, name):
        return os.path.join(MEDIA, ("smoke-" if self.smoke else "") + name)

    def make(self, name, command):
        """Runs `command` (with the output path appended) unless the file is already there."""
        path = self.path(name)
        if not os.path.exists(path):
            partial = path + ".partial" + os.path.splitext(path)[1]
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", *command, partial])
            os.replace(partial, path)
        return path

    def clip(self, name, seconds, size, quality):
        """H.264 (ultrafast, noisy picture for a high bit rate) + AAC in MP4, moov in front."""
        return self.make(name, [
            "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", str(seconds), "-vf", "noise=alls=30:allf=t", "-pix_fmt", "yuv420p",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", str(quality), "-g", "60",
            "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"])

    def repeated(self, name, base, target_bytes):
        """`base` concatenated (concat demuxer, stream copy) until the file is about `target_bytes`."""
        copies = max(1, round(target_bytes / os.path.getsize(base)))
        listing = self.path(name + ".txt")
        with open(listing, "w") as file:
            file.write(f"file '{base}'\n" * copies)
        path = self.make(name, ["-f", "concat", "-safe", "0", "-i", listing, "-c", "copy",
                                "-movflags", "+faststart"])
        os.remove(listing)
        return path

    def prepare(self):
        if self.smoke:
            base = self.clip("base.mp4", 2, "320x240", 34)
            self.small = base
            self.mid = base
            self.big = self.repeated("big.mp4", base, 3 * MB)
            self.upload = self.repeated("upload.mp4", base, 8 * MB)
            pcm_seconds = 5
            self.video = self.make("video-2s.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "2", "-c:v", "libx264", "-preset", "ultrafast",
                "-c:a", "aac", "-b:a", "192k"])
            self.video_label = "2 s 320x240"
            self.long_video, self.long_video_label, self.thumbnail_every = self.video, self.video_label, 0.5
        else:
            base = self.clip("base.mp4", 2, "1280x720", 36)
            self.small = self.clip("small.mp4", 2, "640x360", 40)
            self.mid = self.repeated("60MB.mp4", base, 60 * MB)
            self.big = self.repeated("1GB.mp4", self.mid, 1000 * MB)
            self.upload = self.repeated("2GB.mp4", self.big, 2000 * MB)
            pcm_seconds = 600
            self.video = self.make("video-1080p-60s.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "60", "-c:v", "libx264", "-preset", "ultrafast",
                "-crf", "18", "-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart"])
            self.video_label = "1080p 60 s"
            self.long_video = self.repeated("video-1080p-10min.mp4", self.video, 10 * os.path.getsize(self.video))
            self.long_video_label, self.thumbnail_every = "1080p 10 min", 10
        self.pcm = self.make(f"pcm-{pcm_seconds}s.wav", [
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
            "-f", "lavfi", "-i", "anoisesrc=sample_rate=44100:amplitude=0.2",
            "-filter_complex", "[0][1]amerge=inputs=2", "-t", str(pcm_seconds), "-c:a", "pcm_s16le"])
        self.pcm_seconds = pcm_seconds


def size_label(path):
    size = os.path.getsize(path)
    return f"{size / MB:.0f} MB" if size >= 10 * MB else f"{size / MB:.1f} MB"


# ---------------------------------------------------------------------------------------------- table


class Report:
    """The rows of the results table; a failed case becomes a row that says why."""

    def __init__(self, smoke):
        self.smoke = smoke
        self.rows = []
        self.failures = []

    def add(self, case, mediad, other, ratio, target=None):
        """`target` is (text, met: bool); smoke runs assert no timing and show none."""
        if self.smoke or target is None:
            target_text, verdict = (target[0] if target else "—"), "—"
        else:
            target_text, verdict = target[0], ("met" if target[1] else "**missed**")
        self.rows.append((case, mediad, other, ratio, target_text, verdict))
        print(f"  {case}: {mediad} | {other} | {ratio} | {target_text} {verdict}", flush=True)

    def fail(self, case, error):
        self.failures.append(case)
        self.rows.append((case, "**failed**", str(error).replace("|", "/").replace("\n", " ")[:300], "", "", ""))
        print(f"  {case}: FAILED: {error}", file=sys.stderr, flush=True)

    def markdown(self):
        lines = ["| case | mediad | compared with | ratio | target | |", "| --- | --- | --- | --- | --- | --- |"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)


def seconds(value):
    return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"


def ratio(value):
    return f"{value:.2f}×"


def at_most(value, limit):
    return (f"≤ {limit:g}×", value <= limit)


def at_least(value, limit):
    return (f"≥ {limit:g}×", value >= limit)


# ---------------------------------------------------------------------------------------------- cases


class Bench:
    def __init__(self, arguments, media, report, scratch):
        self.mediad = os.path.join(arguments.bin_dir, "mediad")
        self.engine = os.path.join(arguments.bin_dir, "mediad-bench")
        self.smoke = arguments.smoke
        self.runs = 1 if arguments.smoke else arguments.runs
        self.media = media
        self.report = report
        self.scratch = scratch

    def case(self, name, body):
        try:
            body()
        except Exception as error:  # any failure of one case is reported and the others still run
            self.report.fail(name, error if isinstance(error, CaseFailure) else repr(error))
        finally:
            stop_all()

    def remux(self):
        """Case 1: the remux engine warm in-process and as a command, vs ffmpeg -c copy and cp, each of them
        timed with an fsync of its output (mediad's output is durable when it returns; theirs is not).

        Targets, from the performance issue: the 60 MB file in-process ≤ 0.7× ffmpeg, and the 1 GB file
        ≤ 1× both ways. The 60 MB command has none: starting a process linked to libav takes about 70 ms
        here, mediad's and ffmpeg's alike (`mediad --version` 67 ms, `ffmpeg -version` 71 ms, medians of
        30), which is nearly half of ffmpeg's whole 0.15 s, so 0.7× of it cannot hold for any command."""
        for source, limits in ((self.media.mid, {"in-process": 0.7}), (self.media.big, {"in-process": 1.0,
                                                                                      "`mediad remux`": 1.0})):
            label = size_label(source)
            for fmt in ("mp4", "mkv"):
                out = os.path.join(self.scratch, "remux." + fmt)
                ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-c", "copy",
                          *(["-movflags", "+faststart"] if fmt == "mp4" else []), out]
                name = f"remux {label} → {fmt}"

                def measure():
                    ffmpeg_time = median_time(lambda: timed_synced(ffmpeg, out), self.runs)
                    cp_time = median_time(lambda: timed_synced(["cp", source, out], out), self.runs)
                    command_time = median_time(lambda: timed([self.mediad, "remux", source, "-o", out]), self.runs)
                    os.sync()
                    engine_time = statistics.median(
                        float(line) for line in run([self.engine, source, out, fmt, str(self.runs)]).split())
                    for how, value in (("in-process", engine_time), ("`mediad remux`", command_time)):
                        target = at_most(value / ffmpeg_time, limits[how]) if how in limits else None
                        self.report.add(f"{name}, {how}", seconds(value),
                                        f"ffmpeg -c copy + fsync {seconds(ffmpeg_time)}", ratio(value / ffmpeg_time),
                                        target)
                        self.report.add(f"{name}, {how}", seconds(value), f"cp + fsync {seconds(cp_time)}",
                                        ratio(value / cp_time))

                self.case(name, measure)

    def package(self):
        """Stream-copy HLS with fMP4 segments of the big file: `mediad package` against ffmpeg's hls muxer with
        the same settings, plus a sync of ffmpeg's output (mediad's is durable when the command returns)."""
        source = self.media.big
        ours = os.path.join(self.scratch, "package")
        theirs = os.path.join(self.scratch, "hls")
        name = f"package {size_label(source)} → HLS fMP4, 6 s"

        def fresh(folder):
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)

        def ffmpeg():
            fresh(theirs)
            playlist = os.path.join(theirs, "index.m3u8")
            return timed(["sh", "-c", " ".join([
                "ffmpeg -nostdin -v error -y -i", shlex.quote(source), "-c copy -f hls -hls_time 6",
                "-hls_playlist_type vod -hls_segment_type fmp4 -hls_segment_filename",
                shlex.quote(os.path.join(theirs, "seg_%05d.m4s")), shlex.quote(playlist),
                "&& sync -f", shlex.quote(playlist)])])

        def mediad():
            fresh(ours)
            return timed([self.mediad, "package", source, "-o", ours])

        def measure():
            ffmpeg_time = median_time(ffmpeg, self.runs)
            mediad_time = median_time(mediad, self.runs)
            self.report.add(name, seconds(mediad_time), f"ffmpeg -f hls + sync {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time), at_most(mediad_time / ffmpeg_time, 1.0))

        self.case(name, measure)

    def ladder(self):
        """A three-rendition ABR ladder (`mediad package --renditions`, one decode for all renditions, then
        segments and manifests) against three separate ffmpeg encodes of the same sizes, rates, profiles,
        preset and forced keyframes (each decoding the source again, writing a plain MP4): report the ratio."""
        if self.smoke:
            source = self.media.clip("ladder-source.mp4", 2, "854x480", 30)
            rungs = (("480p", 480, "1500k", "2250k", "main"), ("360p", 360, "800k", "1200k", "main"),
                     ("240p", 240, "400k", "600k", "main"))
        else:
            source = self.media.clip("ladder-source.mp4", 20, "1280x720", 30)
            rungs = (("720p", 720, "3000k", "4500k", "high"), ("480p", 480, "1500k", "2250k", "main"),
                     ("360p", 360, "800k", "1200k", "main"))
        ours = os.path.join(self.scratch, "ladder")
        theirs = os.path.join(self.scratch, "ladder-ffmpeg")
        names = ",".join(rung[0] for rung in rungs)
        name = f"ladder {names} of {size_label(source)}, veryfast, 6 s segments"

        def mediad():
            shutil.rmtree(ours, ignore_errors=True)
            os.makedirs(ours)
            return timed([self.mediad, "package", source, "-o", ours, "--renditions", names])

        def ffmpeg():
            shutil.rmtree(theirs, ignore_errors=True)
            os.makedirs(theirs)
            total = 0.0
            for label, height, rate, peak, profile in rungs:
                total += timed([
                    "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-vf", f"scale=-2:{height}",
                    "-c:v", "libx264", "-preset", "veryfast", "-profile:v", profile, "-b:v", rate, "-maxrate", peak,
                    "-bufsize", str(2 * int(peak[:-1])) + "k", "-sc_threshold", "0",
                    "-force_key_frames", "expr:gte(t,n_forced*6)", "-c:a", "copy",
                    os.path.join(theirs, label + ".mp4")])
            return total

        def measure():
            ffmpeg_time = median_time(ffmpeg, self.runs)
            mediad_time = median_time(mediad, self.runs)
            self.report.add(name, seconds(mediad_time), f"3 × ffmpeg libx264 {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time))

        self.case(name, measure)

    def encode(self):
        """Case 2: PCM → AAC 128k M4A, mediad vs ffmpeg, and two mediad jobs at once."""
        source = self.media.pcm
        name = f"encode {self.media.pcm_seconds} s PCM → AAC 128k"

        def mediad_command(index):
            return [self.mediad, "encode", source, "-o", os.path.join(self.scratch, f"encode{index}.m4a"),
                    "--bitrate", "128k"]

        def ffmpeg_command(index):
            return ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-c:a", "aac", "-b:a", "128k",
                    os.path.join(self.scratch, f"ffmpeg{index}.m4a")]

        def pair(make):
            start_time = time.perf_counter()
            processes = [subprocess.Popen(make(index), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                         for index in (0, 1)]
            for process in processes:
                _, error = process.communicate()
                if process.returncode != 0:
                    raise CaseFailure(f"two at once: exited {process.returncode}: {error.decode()[-400:]}")
            return time.perf_counter() - start_time

        def measure():
            mediad_time = median_time(lambda: timed(mediad_command(0)), self.runs)
            ffmpeg_time = median_time(lambda: timed(ffmpeg_command(0)), self.runs)
            self.report.add(name, seconds(mediad_time), f"ffmpeg -c:a aac {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time), at_most(mediad_time / ffmpeg_time, 1.0))
            mediad_pair = median_time(lambda: pair(mediad_command), self.runs, warmup=0)
            ffmpeg_pair = median_time(lambda: pair(ffmpeg_command), self.runs, warmup=0)
            mediad_gain = 2 * mediad_time / mediad_pair
            ffmpeg_gain = 2 * ffmpeg_time / ffmpeg_pair
            self.report.add(f"{name}, two at once: throughput vs one job", ratio(mediad_gain),
                            f"ffmpeg {ratio(ffmpeg_gain)}", ratio(mediad_gain), at_least(mediad_gain, 1.8))

        self.case(name, measure)

    def upload(self):
        """Case 3: `curl -T` of the upload file to POST /jobs/remux with the data directory on tmpfs and on
        disk: MB/s and server RSS growth, against the disk's own durable write rate (`dd conv=fdatasync`)
        and nginx's PUT to the same disk, as it is and followed by an fsync of its file (mediad's upload is
        hashed and durable when it is answered; nginx's is neither)."""
        source = self.media.upload
        size = os.path.getsize(source)
        name = f"upload ingest {size_label(source)}"
        if not os.path.isdir("/dev/shm"):
            raise CaseFailure("no /dev/shm for the tmpfs data directory")

        def curl_upload(url, expect, multipart=False):
            body = ["-F", f"file=@{source}"] if multipart else ["-T", source]
            output = run(["curl", "-sS", "-X", "POST" if "/jobs/" in url else "PUT", *body,
                          "-o", os.path.join(self.scratch, "upload-response"),
                          "-w", "%{http_code} %{time_total}", url])
            status, elapsed = output.split()
            if int(status) != expect:
                with open(os.path.join(self.scratch, "upload-response"), errors="replace") as file:
                    raise CaseFailure(f"{url} answered {status}: {file.read()[:300]}")
            return float(elapsed)

        def mediad_upload(parent, multipart=False):
            """MB/s of uploads to a server whose data directory is under `parent`, and its RSS growth (MiB)."""
            server = Server(self.mediad, parent, "--workers", "1")
            start_rss = memory_kib(server.pid, "VmRSS")

            def once():
                elapsed = curl_upload(server.url("/jobs/remux?format=mkv"), 202, multipart)
                with open(os.path.join(self.scratch, "upload-response")) as file:
                    job = json.load(file)["id"]
                call("DELETE", server.url(f"/jobs/{job}"))
                call("GET", server.url(f"/jobs/{job}?wait=60"))
                call("DELETE", server.url(f"/jobs/{job}"))
                return elapsed

            try:
                elapsed = median_time(once, self.runs)
                return size / elapsed / MB, (memory_kib(server.pid, "VmHWM") - start_rss) / 1024
            finally:
                server.close()

        def dd_once():
            target = os.path.join(self.scratch, "dd-target")
            start = time.perf_counter()
            run(["dd", "if=/dev/zero", f"of={target}", "bs=1M", f"count={round(size / MIB)}", "conv=fdatasync"])
            elapsed = time.perf_counter() - start
            os.remove(target)
            return elapsed

        def measure():
            tmpfs = tempfile.mkdtemp(prefix="mediad-bench-", dir="/dev/shm")
            try:
                tmpfs_rate, tmpfs_growth = mediad_upload(tmpfs)
                multipart_rate, _ = mediad_upload(tmpfs, multipart=True)
            finally:
                shutil.rmtree(tmpfs, ignore_errors=True)
            disk_rate, disk_growth = mediad_upload(self.scratch)
            dd_rate = size / median_time(dd_once, self.runs) / MB
            nginx = Nginx(self.scratch)
            target = os.path.join(nginx.www, "upload", "file")

            def nginx_once(synced):
                elapsed = curl_upload(nginx.base + "/upload/file", 201)
                if synced:
                    start = time.perf_counter()
                    descriptor = os.open(target, os.O_RDONLY)
                    os.fsync(descriptor)
                    os.close(descriptor)
                    elapsed += time.perf_counter() - start
                os.remove(target)
                return elapsed

            try:
                nginx_rate = size / median_time(lambda: nginx_once(False), self.runs) / MB
                synced_rate = size / median_time(lambda: nginx_once(True), self.runs) / MB
            finally:
                nginx.close()
            growth_mib = max(tmpfs_growth, disk_growth)
            self.report.add(f"{name} to tmpfs: MB/s", f"{tmpfs_rate:.0f} MB/s", "—", "—",
                            ("≥ 1000 MB/s", tmpfs_rate >= 1000))
            self.report.add(f"{name} to tmpfs as multipart (`curl -F`): MB/s", f"{multipart_rate:.0f} MB/s",
                            f"`curl -T` {tmpfs_rate:.0f} MB/s", ratio(multipart_rate / tmpfs_rate))
            self.report.add(f"{name} to disk: MB/s", f"{disk_rate:.0f} MB/s",
                            f"dd conv=fdatasync {dd_rate:.0f} MB/s", ratio(disk_rate / dd_rate),
                            at_least(disk_rate / dd_rate, 0.9))
            self.report.add(f"{name} to disk: MB/s", f"{disk_rate:.0f} MB/s",
                            f"nginx PUT + fsync {synced_rate:.0f} MB/s (without fsync {nginx_rate:.0f} MB/s, "
                            f"{ratio(disk_rate / nginx_rate)})", ratio(disk_rate / synced_rate),
                            at_least(disk_rate / synced_rate, 1.0))
            self.report.add(f"{name}: server peak RSS growth", f"{growth_mib:.1f} MiB", "—", "—",
                            ("< 64 MiB", growth_mib < 64))

        self.case(name, measure)

    def end_to_end(self):
        """Case 4: upload + remux + download over HTTP vs the ffmpeg CLI alone."""
        source = self.media.big
        name = f"end to end {size_label(source)} upload + remux → mp4 + download"
        out = os.path.join(self.scratch, "e2e.mp4")

        def measure():
            server = Server(self.mediad, self.scratch, "--workers", "2")

            def mediad_once():
                start_time = time.perf_counter()
                job = json.loads(run(["curl", "-sS", "-f", "-X", "POST", "-T", source,
                                      server.url("/jobs/remux?format=mp4&wait=300")]))
                if job["state"] != "succeeded":
                    raise CaseFailure(f"the job ended {job['state']}: {job.get('error')}")
                run(["curl", "-sS", "-f", "-o", out, server.url(f"/jobs/{job['id']}/output")])
                elapsed = time.perf_counter() - start_time
                call("DELETE", server.url(f"/jobs/{job['id']}"))
                return elapsed

            mediad_time = median_time(mediad_once, self.runs)
            server.close()
            ffmpeg_time = median_time(lambda: timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source,
                                                     "-c", "copy", "-movflags", "+faststart", out]), self.runs)
            self.report.add(name, seconds(mediad_time), f"ffmpeg -c copy {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time))

        self.case(name, measure)

    def small_jobs(self):
        """Case 5: many small remux jobs over HTTP (--workers 2), vs ffmpeg -c copy two at a time."""
        count = 6 if self.smoke else 200
        source = self.media.small
        name = f"{count} small remux jobs ({size_label(source)})"
        with open(source, "rb") as file:
            body = file.read()

        def measure():
            rates = {}
            for isolation in ("process", "none"):
                server = Server(self.mediad, self.scratch, "--workers", "2", "--isolation", isolation)
                submit_jobs(server, body, 4)
                rates[isolation] = count / submit_jobs(server, body, count)
                server.close()
            outputs = os.path.join(self.scratch, "loop")
            os.makedirs(outputs, exist_ok=True)
            loop = (f"seq {count} | xargs -P 2 -I{{}} ffmpeg -nostdin -v error -y -i '{source}' -c copy "
                    f"-movflags +faststart '{outputs}/{{}}.mp4'")
            loop_rate = count / median_time(lambda: timed(["bash", "-c", "set -o pipefail; " + loop]), 1)
            for isolation, limit in (("process", 2.0), ("none", 2.0)):
                value = rates[isolation] / loop_rate
                self.report.add(f"{name}, isolation {isolation}", f"{rates[isolation]:.1f} jobs/s",
                                f"ffmpeg loop ×2 {loop_rate:.1f} jobs/s", ratio(value), at_least(value, limit))

        self.case(name, measure)

    def scaling(self):
        """The small jobs of case 5 with process isolation on warm workers, at --workers 1, 2, 4 and 8: jobs/s,
        the gain over one worker, and how many of the machine's cores were busy while they ran (the whole
        machine's, from /proc/stat: server, workers, the harness's clients, and whatever else runs)."""
        count = 6 if self.smoke else 200
        source = self.media.small
        name = f"{count} small remux jobs ({size_label(source)}), isolation process"
        with open(source, "rb") as file:
            body = file.read()

        def measure():
            single = None
            for workers in (1, 2, 4, 8):
                server = Server(self.mediad, self.scratch, "--workers", str(workers), "--isolation", "process")
                clients = max(4, 2 * workers)
                submit_jobs(server, body, 2 * workers, clients)  # every worker warm before the timed run
                rates, busy = [], []
                for _ in range(self.runs):
                    cores = busy_cores()
                    rates.append(count / submit_jobs(server, body, count, clients))
                    busy.append(cores())
                server.close()
                rate = statistics.median(rates)
                single = single or rate
                self.report.add(f"{name}, --workers {workers}", f"{rate:.1f} jobs/s",
                                f"--workers 1: {single:.1f} jobs/s; {statistics.median(busy):.2f} of "
                                f"{os.cpu_count()} cores busy; {clients} clients", ratio(rate / single))

        self.case(name, measure)

    def status_api(self):
        """Case 6: wrk against GET /jobs/{id} vs nginx serving the same JSON as a static file."""
        name = "GET /jobs/{id} (wrk)"
        duration = "1s" if self.smoke else "10s"

        def wrk(url):
            output = run(["wrk", "-t", "2", "-c", "32", "-d", duration, "--latency", url])
            if "Non-2xx" in output or "Socket errors" in output:
                raise CaseFailure(f"wrk saw errors for {url}: {output[-400:]}")
            rate = float(output.split("Requests/sec:")[1].split()[0])
            p99 = output.split(" 99%")[1].split()[0]
            return rate, p99

        def measure():
            server = Server(self.mediad, self.scratch, "--workers", "2", "--isolation", "none")
            with open(self.media.small, "rb") as file:
                _, job = call("POST", server.url("/jobs/remux?format=mkv&wait=60"), file.read())
            if not isinstance(job, dict) or job.get("state") != "succeeded":
                raise CaseFailure(f"the status job did not succeed: {job!r}"[:400])
            url = server.url(f"/jobs/{job['id']}")
            _, document = call("GET", url)
            mediad_rate, mediad_p99 = wrk(url)
            server.close()
            nginx = Nginx(self.scratch)
            os.makedirs(os.path.join(nginx.www, "jobs"))
            with open(os.path.join(nginx.www, "jobs", job["id"]), "w") as file:
                json.dump(document, file)
            nginx_rate, nginx_p99 = wrk(f"{nginx.base}/jobs/{job['id']}")
            nginx.close()
            self.report.add(name, f"{mediad_rate:.0f} req/s, p99 {mediad_p99}",
                            f"nginx static {nginx_rate:.0f} req/s, p99 {nginx_p99}",
                            ratio(mediad_rate / nginx_rate), at_least(mediad_rate / nginx_rate, 0.5))

        self.case(name, measure)

    def transcode(self):
        """Case 7: H.264 veryfast CRF 23 + AAC 128k, mediad vs the ffmpeg CLI with the same settings: time
        and peak RSS of each process."""
        source = self.media.video
        name = f"transcode {self.media.video_label} → h264 veryfast crf 23 + aac 128k"
        out = os.path.join(self.scratch, "transcode.mp4")
        mediad = [self.mediad, "transcode", source, "-o", out, "--video-codec", "h264", "--preset", "veryfast",
                  "--crf", "23", "--audio-codec", "aac", "--audio-bitrate", "128k"]
        ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-c:v", "libx264", "-preset", "veryfast",
                  "-crf", "23", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", out]

        def measure():
            runs = {"mediad": [], "ffmpeg": []}
            for _ in range(self.runs + 1):  # the first of each is the warm-up
                for who, command in (("mediad", mediad), ("ffmpeg", ffmpeg)):
                    runs[who].append(timed_peak(command))
            mediad_time, ffmpeg_time = (statistics.median(t for t, _ in runs[w][1:]) for w in ("mediad", "ffmpeg"))
            mediad_peak, ffmpeg_peak = (max(m for _, m in runs[w][1:]) for w in ("mediad", "ffmpeg"))
            self.report.add(name, seconds(mediad_time), f"ffmpeg {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time), at_most(mediad_time / ffmpeg_time, 1.05))
            self.report.add(f"{name}, peak RSS", f"{mediad_peak / 1024:.0f} MiB",
                            f"ffmpeg {ffmpeg_peak / 1024:.0f} MiB", ratio(mediad_peak / ffmpeg_peak),
                            ("≤ ffmpeg + 64 MiB", mediad_peak <= ffmpeg_peak + 64 * 1024))

        self.case(name, measure)

    def thumbnails(self):
        """A picture every 10 s of a 10-minute video (every 0.5 s of 2 s in smoke runs), full size JPEG:
        `mediad thumbnails --every`, which seeks to the keyframe before each point, against `ffmpeg -vf
        fps=1/10`, which decodes every frame; both timed with an fsync of their pictures."""
        source = self.media.long_video
        every = self.media.thumbnail_every
        name = f"thumbnails every {every:g} s of {self.media.long_video_label}"
        ours = os.path.join(self.scratch, "thumbs")
        theirs = os.path.join(self.scratch, "ffmpeg-thumbs")

        def mediad():
            shutil.rmtree(ours, ignore_errors=True)
            return timed([self.mediad, "thumbnails", source, "-o", ours, "--every", f"{every:g}"])

        def ffmpeg():
            shutil.rmtree(theirs, ignore_errors=True)
            os.makedirs(theirs)
            return timed_synced(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-vf", f"fps=1/{every:g}",
                                 os.path.join(theirs, "thumb_%04d.jpg")], theirs)

        def measure():
            mediad_time = median_time(mediad, self.runs)
            ffmpeg_time = median_time(ffmpeg, self.runs)
            pictures = (len(os.listdir(ours)), len(os.listdir(theirs)))
            self.report.add(f"{name} ({pictures[0]} pictures)", seconds(mediad_time),
                            f"ffmpeg -vf fps=1/{every:g} + fsync {seconds(ffmpeg_time)} ({pictures[1]} pictures)",
                            ratio(mediad_time / ffmpeg_time), at_most(mediad_time / ffmpeg_time, 0.5))

        self.case(name, measure)

    def loudness(self):
        """EBU R128 two-pass normalisation of the PCM file to -16 LUFS, -1 dBTP, AAC 128k in M4A: `mediad
        transcode --loudness -16` (measure, then correct) against ffmpeg's two `loudnorm` passes, the first
        printing its measurement as JSON, the second given it (linear mode, back to the input's rate);
        ffmpeg's output timed with an fsync, as mediad's is durable when it returns."""
        source = self.media.pcm
        name = f"loudness -16 LUFS, two passes, {self.media.pcm_seconds} s PCM → AAC 128k"
        ours = os.path.join(self.scratch, "loudness.m4a")
        theirs = os.path.join(self.scratch, "loudnorm.m4a")
        target = "I=-16:TP=-1:LRA=11"
        rate = run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate",
                    "-of", "csv=p=0", source]).strip()

        def mediad():
            return timed([self.mediad, "transcode", source, "-o", ours, "--video-codec", "none", "--audio-codec",
                          "aac", "--audio-bitrate", "128k", "--loudness", "-16", "--true-peak", "-1"])

        def ffmpeg():
            start_time = time.perf_counter()
            first = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-i", source, "-af",
                                    f"loudnorm={target}:print_format=json", "-f", "null", "-"],
                                   capture_output=True, text=True)
            if first.returncode != 0:
                raise CaseFailure(f"loudnorm's first pass exited {first.returncode}: {first.stderr[-400:]}")
            measured = json.loads(first.stderr[first.stderr.rindex("{"):first.stderr.rindex("}") + 1])
            second = (f"loudnorm={target}:measured_I={measured['input_i']}:measured_TP={measured['input_tp']}:"
                      f"measured_LRA={measured['input_lra']}:measured_thresh={measured['input_thresh']}:"
                      f"offset={measured['target_offset']}:linear=true")
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-af", second, "-ar", rate, "-c:a", "aac",
                 "-b:a", "128k", "-movflags", "+faststart", theirs])
            sync_path(theirs)
            return time.perf_counter() - start_time

        def measure():
            mediad_time = median_time(mediad, self.runs)
            ffmpeg_time = median_time(ffmpeg, self.runs)
            self.report.add(name, seconds(mediad_time), f"ffmpeg loudnorm ×2 + fsync {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time), at_most(mediad_time / ffmpeg_time, 1.0))

        self.case(name, measure)

# ---------------------------------------------------------------------------------------------- main


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
    nginx = subprocess.run([NGINX, "-v"], capture_output=True, text=True).stderr.strip()
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
                                            "transcode,thumbnails,loudness,ladder",
                        help="comma-separated subset of the cases")
    arguments = parser.parse_args()
    global NGINX
    NGINX = arguments.nginx

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
