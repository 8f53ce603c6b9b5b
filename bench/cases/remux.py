"""Remux: the engine warm in one process and the command, against ffmpeg -c copy and cp."""

import os
import statistics

from harness.media import size_label
from harness.processes import median_time, run, timed, timed_synced
from harness.report import at_most, ratio, seconds


class RemuxCases:
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
