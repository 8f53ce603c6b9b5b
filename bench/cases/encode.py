"""PCM → AAC: one job against ffmpeg, and two jobs at once."""

import os
import subprocess
import time

from harness.processes import CaseFailure, median_time, timed
from harness.report import at_least, at_most, ratio, seconds


class EncodeCases:
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
