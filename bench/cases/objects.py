"""Media in an S3 bucket (`serve --objects`, issue 29) on SeaweedFS, against boto3 and the local file."""

import json
import os
import threading
import time

from cases.database import instant
from harness.media import MB, size_label
from harness.processes import CaseFailure, call, median_time, memory_kib, run, timed
from harness.report import at_least, ratio, seconds
from harness.seaweed import SeaweedFS
from harness.servers import Server


class PeakRSS:
    """The highest VmRSS of a process, sampled every 20 ms while the block runs (VmHWM would keep the
    server's earlier peaks), minus its RSS when the block began: the growth one request caused."""

    def __init__(self, pid):
        self.pid = pid
        self.peak = 0
        self.running = True

    def __enter__(self):
        self.start = memory_kib(self.pid, "VmRSS")
        self.peak = self.start
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()
        return self

    def sample(self):
        while self.running:
            self.peak = max(self.peak, memory_kib(self.pid, "VmRSS"))
            time.sleep(0.02)

    def __exit__(self, *_):
        self.running = False
        self.thread.join()

    @property
    def growth_mib(self):
        return (self.peak - self.start) / 1024


class ObjectCases:
    def objects(self):
        """A server with `--objects` on a SeaweedFS of its own: an upload into the bucket through mediad
        against boto3's `upload_file` of the same file to the same store (rate, and mediad's RSS growth);
        the remux of the uploaded file (its run, which ends with the output put into the bucket, against
        `ffmpeg -c copy` of the local file: the difference should be that transfer alone); and the time to the first byte of a download through the 302 against a presigned GET
        straight from the store."""
        source = self.media.upload
        remuxed = self.media.big
        size = os.path.getsize(source)
        name = f"--objects on SeaweedFS, {size_label(source)} upload, {size_label(remuxed)} remux"

        def measure():
            store = SeaweedFS(self.scratch)
            s3 = store.client()
            server = Server(self.mediad, self.scratch, "--workers", "1", "--objects", "s3://mediad/bench",
                            "--s3-endpoint", store.endpoint, "--s3-path-style", environment=store.environment)
            answer = os.path.join(self.scratch, "objects-answer")

            def submit(path, query):
                output = run(["curl", "-sS", "-X", "POST", "-T", path, "-o", answer, "-w", "%{http_code} %{time_total}",
                              server.url(f"/jobs/remux?format=mkv{query}")])
                status, elapsed = output.split()
                with open(answer, errors="replace") as file:
                    text = file.read()
                if status not in ("200", "202"):
                    raise CaseFailure(f"the upload answered {status}: {text[:300]}")
                return json.loads(text), float(elapsed)

            growth = []

            def mediad_once():
                with PeakRSS(server.pid) as rss:
                    job, elapsed = submit(source, "")
                growth.append(rss.growth_mib)
                call("GET", server.url(f"/jobs/{job['id']}?wait=300"))
                call("DELETE", server.url(f"/jobs/{job['id']}"))
                return elapsed

            def boto_once():
                start = time.perf_counter()
                s3.upload_file(source, store.BUCKET, "bench/boto3-upload")
                elapsed = time.perf_counter() - start
                s3.delete_object(Bucket=store.BUCKET, Key="bench/boto3-upload")
                return elapsed

            mediad_rate = size / median_time(mediad_once, self.runs) / MB
            boto_rate = size / median_time(boto_once, self.runs) / MB
            self.report.add(f"{name}: upload into the bucket, MB/s", f"{mediad_rate:.0f} MB/s",
                            f"boto3 upload_file {boto_rate:.0f} MB/s", ratio(mediad_rate / boto_rate),
                            at_least(mediad_rate / boto_rate, 0.9))
            self.report.add(f"{name}: server RSS growth during the upload", f"{max(growth):.1f} MiB", "—", "—",
                            ("< 128 MiB", max(growth) < 128))

            runs = []

            def remux_once():
                job, _ = submit(remuxed, "&wait=300")
                if job["state"] != "succeeded":
                    raise CaseFailure(f"the remux ended {job['state']}: {job.get('error')}")
                runs.append(job)
                return instant(job["finished_at"]) - instant(job["started_at"])

            remux_time = median_time(remux_once, self.runs)
            out = os.path.join(self.scratch, "objects-remux.mkv")
            ffmpeg_time = median_time(lambda: timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", remuxed,
                                                     "-c", "copy", out]), self.runs)
            os.remove(out)
            self.report.add(f"{name}: remux run on the replica that received it (its output put in the bucket "
                            "before the job succeeds)",
                            seconds(remux_time), f"ffmpeg -c copy of the local file {seconds(ffmpeg_time)}",
                            ratio(remux_time / ffmpeg_time))

            job = runs[-1]
            output = job["outputs"][0]["name"]
            s3_key = "bench/objects-ttfb"
            s3.upload_file(source if self.smoke else remuxed, store.BUCKET, s3_key)
            direct = s3.generate_presigned_url("get_object", Params={"Bucket": store.BUCKET, "Key": s3_key})

            def first_byte(url, follow):
                text = run(["curl", "-sS", *(["-L"] if follow else []), "-o", "/dev/null", "-r", "0-0",
                            "-w", "%{time_starttransfer}", url])
                return float(text)

            redirected = median_time(lambda: first_byte(server.url(f"/jobs/{job['id']}/outputs/{output}"), True),
                                     self.runs)
            straight = median_time(lambda: first_byte(direct, False), self.runs)
            self.report.add(f"{name}: time to first byte of a download (302, then the store)",
                            f"{redirected * 1000:.1f} ms", f"presigned GET from the store {straight * 1000:.1f} ms",
                            ratio(redirected / straight))
            server.close()
            store.close()

        self.case(name, measure)
