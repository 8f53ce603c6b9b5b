"""How a job reads its input from the bucket (`serve --objects`, issue 29): staged whole before the worker
starts, or read by the worker while it is staged, against libav's own ranged reads and the local file."""

import json
import os
import signal
import subprocess
import time

from cases.database import instant
from harness.media import size_label
from harness.postgres import Postgres
from harness.processes import CaseFailure, call, run, timed
from harness.report import ratio, seconds
from harness.seaweed import SeaweedFS
from harness.servers import Server


class StagingCases:
    def objects_staging(self):
        """The remux (to Matroska) of a ~1 GB MP4 object, `moov` in front and the same file with its `moov`
        at the end, run by a replica that did not receive the job, so it reads the input from the bucket:
        (a) staged whole and checked before the worker starts (`--objects-stage-whole`) and (b) read by the
        worker while it is staged (the default), timed from the job's start to the end of its remux (the
        job log's `storing … outputs` line: the output's PUT into the bucket is left out); against (c)
        `ffmpeg -i <presigned GET URL> -c copy`, libav's http protocol reading the same object with ranged
        GETs and seeks, and (d) `ffmpeg -c copy` of the local file, each writing a local file.

        Replica A (PostgreSQL, SeaweedFS) receives every job, its one worker held with SIGSTOP on a job of its
        own, so replica B runs them: B once with (a), once with (b)."""
        front = self.media.big
        end = self.media.make("1GB-moov-at-end.mp4" if not self.smoke else "big-moov-at-end.mp4",
                              ["-i", front, "-c", "copy"])
        name = f"--objects input read from the bucket, {size_label(front)} remux"

        def measure():
            postgres = Postgres()
            store = SeaweedFS(self.scratch)
            objects = ["--database", postgres.url, "--workers", "1", "--objects", "s3://mediad/staging",
                       "--s3-endpoint", store.endpoint, "--s3-path-style"]
            a = Server(self.mediad, self.scratch, "--replica-id", "a", *objects, environment=store.environment)
            held = hold_worker(a, self.media.mid)
            s3 = store.client()
            times = {}
            for mode, flags in (("whole", ["--objects-stage-whole"]), ("overlapped", [])):
                b = Server(self.mediad, self.scratch, "--replica-id", "b", *objects, *flags,
                           environment=store.environment)
                run_on(a, b, self.media.small)  # warms B's worker up
                for label, path in (("moov in front", front), ("moov at the end", end)):
                    runs = []
                    for _ in range(self.runs):
                        os.sync()
                        job, remux = run_on(a, b, path)
                        runs.append(remux)
                        if mode == "overlapped":
                            url = s3.generate_presigned_url(
                                "get_object", Params={"Bucket": store.BUCKET,
                                                      "Key": f"staging/jobs/{job}/inputs/input"}, ExpiresIn=3600)
                            out = os.path.join(self.scratch, "staging-ranged.mkv")
                            times.setdefault(("ranged", label), []).append(
                                timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", url, "-c", "copy", out]))
                            out = os.path.join(self.scratch, "staging-local.mkv")
                            times.setdefault(("local", label), []).append(
                                timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-c", "copy", out]))
                            os.remove(out)
                        call("DELETE", b.url(f"/jobs/{job}"))
                    times[(mode, label)] = runs
                b.close()
            os.kill(held, signal.SIGCONT)
            a.close()
            store.close()
            postgres.close()
            median = {key: sorted(values)[len(values) // 2] for key, values in times.items()}
            for label in ("moov in front", "moov at the end"):
                local = median[("local", label)]
                for mode, what in (("whole", "(a) staged whole, then run (--objects-stage-whole)"),
                                   ("overlapped", "(b) run while staged (default)")):
                    self.report.add(f"{name}, {label}: {what}", seconds(median[(mode, label)]),
                                    f"ffmpeg -c copy of the local file {seconds(local)}",
                                    ratio(median[(mode, label)] / local))
                self.report.add(f"{name}, {label}: (c) ffmpeg -i <presigned GET URL> -c copy (libav ranged reads)",
                                seconds(median[("ranged", label)]), f"ffmpeg -c copy of the local file {seconds(local)}",
                                ratio(median[("ranged", label)] / local))

        self.case(name, measure)


def submit(server, path):
    """Job id of a remux to Matroska of `path`, sent as a raw body."""
    answer = run(["curl", "-sS", "-X", "POST", "-T", path, server.url("/jobs/remux?format=mkv")])
    document = json.loads(answer)
    if "id" not in document:
        raise CaseFailure(f"the submission answered {answer[:300]}")
    return document["id"]


def hold_worker(server, path):
    """Holds the one worker of `server` with SIGSTOP on a job of its own, so that the jobs it receives wait
    for another replica; returns the worker's pid."""
    for _ in range(5):
        job = submit(server, path)
        deadline = time.time() + 30
        while time.time() < deadline:
            found = subprocess.run(["pgrep", "-P", str(server.pid), "-f", "mediad worker"], capture_output=True,
                                   text=True).stdout.split()
            if found:
                worker = int(found[0])
                os.kill(worker, signal.SIGSTOP)
                # Still running a second later: the worker was stopped before it could report its end.
                time.sleep(1)
                _, record = call("GET", server.url(f"/jobs/{job}"))
                if record["state"] == "running":
                    return worker
                os.kill(worker, signal.SIGCONT)
                break
            time.sleep(0.005)
    raise CaseFailure("could not hold the receiving replica's worker on a job")


def run_on(receiver, runner, path):
    """Submits `path` to `receiver`, waits for `runner` to run it; returns the job id and the seconds from
    its start to its log's `storing … outputs` line (the remux done, the output's PUT not yet begun)."""
    job = submit(receiver, path)
    record = {}
    for _ in range(6):
        _, record = call("GET", runner.url(f"/jobs/{job}?wait=300"))
        if record.get("state") in ("succeeded", "failed", "cancelled"):
            break
    if record.get("state") != "succeeded" or record.get("replica") != "b":
        raise CaseFailure(f"the remux ended {record.get('state')} on {record.get('replica')}: {record.get('error')}")
    _, log = call("GET", runner.url(f"/jobs/{job}/log"))
    text = log.decode() if isinstance(log, bytes) else json.dumps(log)
    stored = [line for line in text.splitlines() if " storing " in line and " outputs " in line]
    if not stored:
        raise CaseFailure(f"no 'storing outputs' line in the log: {text[-400:]}")
    return job, instant(stored[-1].split(" ", 1)[0]) - instant(record["started_at"])
