"""The status API under wrk, against nginx serving the same JSON."""

import json
import os

from harness.processes import CaseFailure, call, wrk
from harness.report import at_least, ratio
from harness.servers import Nginx, Server


class StatusAPICases:
    def status_api(self):
        """Case 6: wrk against GET /jobs/{id} vs nginx serving the same JSON as a static file."""
        name = "GET /jobs/{id} (wrk)"
        duration = "1s" if self.smoke else "10s"

        def measure():
            server = Server(self.mediad, self.scratch, "--workers", "2", "--isolation", "none")
            with open(self.media.small, "rb") as file:
                _, job = call("POST", server.url("/jobs/remux?format=mkv&wait=60"), file.read())
            if not isinstance(job, dict) or job.get("state") != "succeeded":
                raise CaseFailure(f"the status job did not succeed: {job!r}"[:400])
            url = server.url(f"/jobs/{job['id']}")
            _, document = call("GET", url)
            mediad_rate, mediad_p99 = wrk(url, duration)
            server.close()
            nginx = Nginx(self.scratch)
            os.makedirs(os.path.join(nginx.www, "jobs"))
            with open(os.path.join(nginx.www, "jobs", job["id"]), "w") as file:
                json.dump(document, file)
            nginx_rate, nginx_p99 = wrk(f"{nginx.base}/jobs/{job['id']}", duration)
            nginx.close()
            self.report.add(name, f"{mediad_rate:.0f} req/s, p99 {mediad_p99}",
                            f"nginx static {nginx_rate:.0f} req/s, p99 {nginx_p99}",
                            ratio(mediad_rate / nginx_rate), at_least(mediad_rate / nginx_rate, 0.5))

        self.case(name, measure)
