"""Thumbnails by seeking, against ffmpeg decoding every frame."""

import os
import shutil

from harness.processes import median_time, timed, timed_synced
from harness.report import at_most, ratio, seconds


class ThumbnailsCases:
    def thumbnails(self):
        """A picture every 10 s of a 10-minute video (every 0.5 s of 2 s in smoke runs), full size JPEG:
        `mediad thumbnails --every`, which seeks to the keyframe before each point, against `ffmpeg -vf
        fps=1/10`, which decodes every frame; both timed with an fsync of their pictures."""
        source = self.media.long_video
        every = self.media.thumbnail_every
        name = f"thumbnails every {every:g} s of {self.media.long_video_label}"
        ours = os.path.join(self.scratch, "thumbs")
        theirs = os.path.join(self.scratch, "ffmpeg-thumbs")

        def mediad():
            shutil.rmtree(ours, ignore_errors=True)
            return timed([self.mediad, "thumbnails", source, "-o", ours, "--every", f"{every:g}"])

        def ffmpeg():
            shutil.rmtree(theirs, ignore_errors=True)
            os.makedirs(theirs)
            return timed_synced(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-vf", f"fps=1/{every:g}",
                                 os.path.join(theirs, "thumb_%04d.jpg")], theirs)

        def measure():
            mediad_time = median_time(mediad, self.runs)
            ffmpeg_time = median_time(ffmpeg, self.runs)
            pictures = (len(os.listdir(ours)), len(os.listdir(theirs)))
            self.report.add(f"{name} ({pictures[0]} pictures)", seconds(mediad_time),
                            f"ffmpeg -vf fps=1/{every:g} + fsync {seconds(ffmpeg_time)} ({pictures[1]} pictures)",
                            ratio(mediad_time / ffmpeg_time), at_most(mediad_time / ffmpeg_time, 0.5))

        self.case(name, measure)
