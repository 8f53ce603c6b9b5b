"""Replicas on PostgreSQL (`serve --database`) against one server on the filesystem store (issue 28)."""

import datetime
import json
import os
import statistics
import threading
import time

from harness.media import size_label
from harness.postgres import Postgres
from harness.processes import CaseFailure, call, wrk
from harness.report import at_least, ratio
from harness.servers import Nginx, Server, submit_jobs

# The replicas' ids, which the job JSON's `replica` names.
REPLICAS = ("a", "b")


def instant(text):
    """Seconds since the epoch of an RFC 3339 time of the job JSON (milliseconds, `Z`)."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def percentiles(values):
    """p50 and p99 of `values` (p99 the largest for fewer than 100)."""
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def milliseconds(pair):
    return f"p50 {pair[0] * 1000:.1f} ms, p99 {pair[1] * 1000:.1f} ms"


class DatabaseCases:
    def database(self):
        """Two replicas on one PostgreSQL (started here, in a temporary directory) with one worker each,
        against one filesystem server with two: 200 small remux jobs' rate, claim-to-start latency, a
        long-poll's wake on the replica that did not run the job, `GET /jobs/{id}` under wrk (with nginx
        serving the same JSON), and mediad's statements per job from pg_stat_statements."""
        count = 6 if self.smoke else 200
        sequential = 4 if self.smoke else 50
        polls = 3 if self.smoke else 30
        duration = "1s" if self.smoke else "5s"
        name = f"--database, 2 replicas × 1 worker vs filesystem × 2 ({size_label(self.media.small)} clip)"
        with open(self.media.small, "rb") as file:
            body = file.read()

        def jobs(servers, postgres=None):
            """Jobs/s of `count` jobs from 4 clients, and created_at → started_at of `sequential` jobs from
            as many clients as workers, so that each job finds a worker free: the claim and dispatch alone.
            With `postgres`, also the statements mediad ran for the `count` jobs, most called first."""
            submit_jobs(servers, body, 4)
            records = []
            submit_jobs(servers, body, sequential, 2, records)
            latency = percentiles([instant(r["started_at"]) - instant(r["created_at"]) for r in records])
            if postgres:
                postgres.psql("SELECT pg_stat_statements_reset()", "mediad")
            rate = count / submit_jobs(servers, body, count)
            statements = postgres.psql(
                "SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
                "WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = 'mediad') ORDER BY calls DESC",
                "mediad") if postgres else None
            return rate, latency, statements

        def measure():
            postgres = Postgres()
            filesystem = Server(self.mediad, self.scratch, "--workers", "2", "--isolation", "process")
            file_rate, file_latency, _ = jobs(filesystem)
            file_get = wrk(filesystem.url(f"/jobs/{self.one_job(filesystem, body)['id']}"), duration)
            filesystem.close()

            shared = os.path.join(self.scratch, "replicas")
            os.makedirs(shared)
            replicas = [Server(self.mediad, self.scratch, "--database", postgres.url, "--replica-id", replica,
                               "--workers", "1", "--isolation", "process", data=shared) for replica in REPLICAS]
            database_rate, database_latency, statements = jobs(replicas, postgres)
            wakes = self.wakes(replicas, body, polls)
            job = self.one_job(replicas[0], body)
            database_url = replicas[1].url(f"/jobs/{job['id']}")
            _, document = call("GET", database_url)
            database_get = wrk(database_url, duration)
            for replica in replicas:
                replica.close()
            postgres.close()

            nginx = Nginx(self.scratch)
            os.makedirs(os.path.join(nginx.www, "jobs"))
            with open(os.path.join(nginx.www, "jobs", job["id"]), "w") as file:
                json.dump(document, file)
            nginx_get = wrk(f"{nginx.base}/jobs/{job['id']}", duration)
            nginx.close()

            self.report.add(f"{name}: {count} jobs", f"{database_rate:.1f} jobs/s",
                            f"filesystem {file_rate:.1f} jobs/s", ratio(database_rate / file_rate))
            self.report.add(f"{name}: claim to start (created_at → started_at, {sequential} jobs, 2 clients)",
                            milliseconds(database_latency), f"filesystem {milliseconds(file_latency)}",
                            ratio(database_latency[0] / max(file_latency[0], 0.0005)))
            cross, local, late = wakes
            self.report.add(f"{name}: long-poll on the other replica (finished_at → answer, {len(cross)} jobs"
                            + (f", {late} started too late left out" if late else "") + ")",
                            milliseconds(percentiles(cross)),
                            f"on the replica that ran it {milliseconds(percentiles(local))}", "—",
                            ("p99 < 100 ms", percentiles(cross)[1] < 0.1))
            for label, (rate, p99) in (("database replica", database_get), ("filesystem", file_get)):
                self.report.add(f"{name}: GET /jobs/{{id}} (wrk), {label}", f"{rate:.0f} req/s, p99 {p99}",
                                f"nginx static {nginx_get[0]:.0f} req/s, p99 {nginx_get[1]}",
                                ratio(rate / nginx_get[0]), at_least(rate / nginx_get[0], 0.5))
            total = sum(int(calls) for calls, _ in statements)
            top = "; ".join(f"{int(calls) / count:.1f} {' '.join(query.split()[:4])}…"
                            for calls, query in statements[:4])
            self.report.add(f"{name}: statements per job (pg_stat_statements, {count} jobs)",
                            f"{total / count:.1f} per job", f"most called, per job: {top}", "—")
            for calls, query in statements[:10]:
                print(f"    {int(calls):6d} {int(calls) / count:5.1f}/job  {query[:110]}", flush=True)

        self.case(name, measure)

    @staticmethod
    def one_job(server, body):
        """A remux job of `body` run to its end on `server`; its JSON."""
        _, job = call("POST", server.url("/jobs/remux?format=mkv&wait=60"), body)
        if not isinstance(job, dict) or job.get("state") != "succeeded":
            raise CaseFailure(f"the job did not succeed: {job!r}"[:400])
        return job

    @staticmethod
    def wakes(replicas, body, jobs):
        """Submits `jobs` transcodes one by one to the first replica and long-polls each on both replicas at
        once; the seconds from the job's finished_at to the answer on the replica that did not run it
        (woken by NOTIFY) and on the one that did, and how many jobs were left out because a long-poll was
        sent after the job had finished (so it did not wait)."""
        cross, local, late = [], [], 0
        for index in range(jobs + 1):  # the first is the warm-up
            status, job = call("POST", replicas[0].url("/jobs/transcode?preset=veryfast"), body)
            if status not in (200, 202) or not isinstance(job, dict):
                raise CaseFailure(f"the transcode was not accepted: {status} {job!r}"[:400])
            answers = {}

            def poll(replica):
                sent = time.time()
                _, record = call("GET", replica.url(f"/jobs/{job['id']}?wait=60"))
                answers[replica] = (sent, time.time(), record)

            threads = [threading.Thread(target=poll, args=(replica,)) for replica in replicas]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            record = answers[replicas[1]][2]
            if not isinstance(record, dict) or record.get("state") != "succeeded":
                raise CaseFailure(f"the transcode did not succeed: {record!r}"[:400])
            finished = instant(record["finished_at"])
            ran = replicas[REPLICAS.index(record["replica"])]
            other = replicas[1 - replicas.index(ran)]
            if index == 0:
                continue
            if max(sent for sent, _, _ in answers.values()) >= finished:
                late += 1
                continue
            cross.append(answers[other][1] - finished)
            local.append(answers[ran][1] - finished)
        if not cross:
            raise CaseFailure("every long-poll was sent after its job had finished")
        return cross, local, late
