"""The inputs of the cases, made with the ffmpeg CLI into bench/media/ (gitignored) and kept between runs."""

import os

from harness.processes import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEDIA = os.path.join(ROOT, "bench", "media")
MB = 1_000_000
MIB = 1 << 20


class Media:
    """The inputs, made once with the ffmpeg CLI and kept in bench/media/ between runs."""

    def __init__(self, smoke):
        self.smoke = smoke
        os.makedirs(MEDIA, exist_ok=True)

    def path(self, name):
        return os.path.join(MEDIA, ("smoke-" if self.smoke else "") + name)

    def make(self, name, command):
        """Runs `command` (with the output path appended) unless the file is already there."""
        path = self.path(name)
        if not os.path.exists(path):
            partial = path + ".partial" + os.path.splitext(path)[1]
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", *command, partial])
            os.replace(partial, path)
        return path

    def clip(self, name, seconds, size, quality):
        """H.264 (ultrafast, noisy picture for a high bit rate) + AAC in MP4, moov in front."""
        return self.make(name, [
            "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", str(seconds), "-vf", "noise=alls=30:allf=t", "-pix_fmt", "yuv420p",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", str(quality), "-g", "60",
            "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"])

    def repeated(self, name, base, target_bytes):
        """`base` concatenated (concat demuxer, stream copy) until the file is about `target_bytes`."""
        copies = max(1, round(target_bytes / os.path.getsize(base)))
        listing = self.path(name + ".txt")
        with open(listing, "w") as file:
            file.write(f"file '{base}'\n" * copies)
        path = self.make(name, ["-f", "concat", "-safe", "0", "-i", listing, "-c", "copy",
                                "-movflags", "+faststart"])
        os.remove(listing)
        return path

    def prepare(self):
        if self.smoke:
            base = self.clip("base.mp4", 2, "320x240", 34)
            self.small = base
            self.mid = base
            self.big = self.repeated("big.mp4", base, 3 * MB)
            self.upload = self.repeated("upload.mp4", base, 8 * MB)
            pcm_seconds = 5
            self.video = self.make("video-2s.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "2", "-c:v", "libx264", "-preset", "ultrafast",
                "-c:a", "aac", "-b:a", "192k"])
            self.video_label = "2 s 320x240"
            self.long_video, self.long_video_label, self.thumbnail_every = self.video, self.video_label, 0.5
        else:
            base = self.clip("base.mp4", 2, "1280x720", 36)
            self.small = self.clip("small.mp4", 2, "640x360", 40)
            self.mid = self.repeated("60MB.mp4", base, 60 * MB)
            self.big = self.repeated("1GB.mp4", self.mid, 1000 * MB)
            self.upload = self.repeated("2GB.mp4", self.big, 2000 * MB)
            pcm_seconds = 600
            self.video = self.make("video-1080p-60s.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "60", "-c:v", "libx264", "-preset", "ultrafast",
                "-crf", "18", "-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart"])
            self.video_label = "1080p 60 s"
            self.long_video = self.repeated("video-1080p-10min.mp4", self.video, 10 * os.path.getsize(self.video))
            self.long_video_label, self.thumbnail_every = "1080p 10 min", 10
        self.pcm = self.make(f"pcm-{pcm_seconds}s.wav", [
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
            "-f", "lavfi", "-i", "anoisesrc=sample_rate=44100:amplitude=0.2",
            "-filter_complex", "[0][1]amerge=inputs=2", "-t", str(pcm_seconds), "-c:a", "pcm_s16le"])
        self.pcm_seconds = pcm_seconds


def size_label(path):
    size = os.path.getsize(path)
    return f"{size / MB:.0f} MB" if size >= 10 * MB else f"{size / MB:.1f} MB"
