"""Packaging: stream-copy HLS against ffmpeg's hls muxer, and an ABR ladder against separate ffmpeg encodes."""

import os
import shlex
import shutil

from harness.media import size_label
from harness.processes import median_time, timed
from harness.report import at_most, ratio, seconds


class PackageCases:
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
