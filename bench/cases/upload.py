"""Uploads over HTTP: ingest rate against dd and nginx, and upload + remux + download end to end."""

import json
import os
import shutil
import tempfile
import time

from harness.media import MB, MIB, size_label
from harness.processes import CaseFailure, call, median_time, memory_kib, run, timed
from harness.report import at_least, ratio, seconds
from harness.servers import Nginx, Server


class UploadCases:
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

        # A client sending at this rate: the job starts while the body arrives, so the whole takes about
        # the upload's time, not the upload's time and then the remux's.
        paced_rate = 200 * MB

        def measure():
            server = Server(self.mediad, self.scratch, "--workers", "2")

            def mediad_once(rate=None):
                start_time = time.perf_counter()
                pace = ["--limit-rate", str(rate)] if rate else []
                job = json.loads(run(["curl", "-sS", "-f", "-X", "POST", "-T", source] + pace +
                                     [server.url("/jobs/remux?format=mp4&wait=300")]))
                if job["state"] != "succeeded":
                    raise CaseFailure(f"the job ended {job['state']}: {job.get('error')}")
                run(["curl", "-sS", "-f", "-o", out, server.url(f"/jobs/{job['id']}/output")])
                elapsed = time.perf_counter() - start_time
                call("DELETE", server.url(f"/jobs/{job['id']}"))
                return elapsed

            mediad_time = median_time(mediad_once, self.runs)
            paced_time = median_time(lambda: mediad_once(paced_rate), self.runs)
            server.close()
            ffmpeg_time = median_time(lambda: timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source,
                                                     "-c", "copy", "-movflags", "+faststart", out]), self.runs)
            self.report.add(name, seconds(mediad_time), f"ffmpeg -c copy {seconds(ffmpeg_time)}",
                            ratio(mediad_time / ffmpeg_time))
            upload_time = os.path.getsize(source) / paced_rate
            self.report.add(f"{name}, sent at {paced_rate // MB} MB/s", seconds(paced_time),
                            f"upload {seconds(upload_time)} then ffmpeg -c copy "
                            f"{seconds(upload_time + ffmpeg_time)}",
                            ratio(paced_time / (upload_time + ffmpeg_time)))

        self.case(name, measure)
