"""Encoding video and audio: transcode time and memory, and two-pass loudness normalisation, against ffmpeg."""

import json
import os
import statistics
import subprocess
import time

from harness.processes import CaseFailure, median_time, run, sync_path, timed, timed_peak
from harness.report import at_most, ratio, seconds


class TranscodeCases:
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
