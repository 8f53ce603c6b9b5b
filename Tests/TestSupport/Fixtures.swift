import Foundation

/// Test media made by the ffmpeg CLI, generated once per test process and shared read-only.
///
/// Each fixture is a small synthetic file with known properties (tone frequencies, test-pattern
/// video, B-frames) so tests can check mediad's outputs against what went in.
public enum Fixtures {
    private static let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mediad-fixtures-\(getpid())"
        ).path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    private static let lock = NSLock()

    /// Returns the path of fixture `name`, making it with `ffmpeg <arguments> <path>` the first time.
    public static func make(_ name: String, _ arguments: [String]) throws -> String {
        try lock.withLock {
            let path = directory + "/" + name
            if !FileManager.default.fileExists(atPath: path) {
                let temporary = directory + "/.tmp-" + name
                try Command.run("ffmpeg", ["-v", "error", "-y"] + arguments + [temporary])
                try FileManager.default.moveItem(atPath: temporary, toPath: path)
            }
            return path
        }
    }

    static let tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3"]
    static let pattern = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3"]

    /// 3 s of 320x240 30 fps H.264 High with B-frames (b-pyramid), a keyframe exactly every 30 frames,
    /// and 48 kHz stereo AAC; moov at the end.
    public static func h264AacMP4() throws -> String {
        try make(
            "h264_aac.mp4",
            pattern + tone + [
                "-ac", "2", "-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "30", "-sc_threshold", "0",
                "-c:a", "aac", "-b:a", "96k", "-shortest", "-f", "mp4",
            ])
    }

    /// 2 s of 320x240 25 fps H.265 ('hvc1', B-frames) and 44.1 kHz mono AAC tagged German, with a
    /// creation time.
    public static func hevcAacMP4() throws -> String {
        try make(
            "hevc_aac.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=frequency=1000:sample_rate=44100:duration=2", "-c:v", "libx265", "-preset", "ultrafast",
                "-x265-params", "bframes=3:keyint=25:log-level=error", "-tag:v", "hvc1", "-c:a", "aac", "-ac", "1",
                "-metadata:s:a:0", "language=deu", "-metadata", "creation_time=2024-01-02T03:04:05Z", "-shortest",
                "-f", "mp4",
            ])
    }

    /// `h264AacMP4` as MPEG-TS (Annex-B video, ADTS audio), as a camera or broadcast capture.
    public static func h264AacTS() throws -> String {
        try make("h264_aac.ts", ["-i", try h264AacMP4(), "-map", "0", "-c", "copy", "-f", "mpegts"])
    }

    /// The H.264 stream of `h264AacMP4` as Annex-B, and its frame rate (30).
    public static func h264AnnexB() throws -> String {
        try make("video.h264", ["-i", try h264AacMP4(), "-map", "0:v", "-c", "copy", "-f", "h264"])
    }

    /// An H.265 Annex-B stream with B-frames at 25 fps.
    public static func hevcAnnexB() throws -> String {
        try make(
            "video.h265",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx265", "-preset",
                "ultrafast", "-x265-params", "bframes=4:keyint=25:log-level=error", "-f", "hevc",
            ])
    }

    /// The AAC stream of `h264AacMP4` as ADTS.
    public static func adts() throws -> String {
        try make("audio.aac", ["-i", try h264AacMP4(), "-map", "0:a", "-c", "copy", "-f", "adts"])
    }

    /// 2 s of 44.1 kHz stereo 16-bit WAV (two tones).
    public static func wav() throws -> String {
        try make(
            "tone.wav",
            [
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=2", "-f", "lavfi", "-i",
                "sine=frequency=660:sample_rate=44100:duration=2", "-filter_complex", "[0][1]amerge=inputs=2",
                "-c:a", "pcm_s16le", "-f", "wav",
            ])
    }
}
