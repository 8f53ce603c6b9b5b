"""Many small jobs over HTTP: against an ffmpeg loop, and at 1 to 8 workers."""

import os
import statistics

from harness.media import size_label
from harness.processes import busy_cores, median_time, timed
from harness.report import at_least, ratio
from harness.servers import Server, submit_jobs


class JobCases:
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
