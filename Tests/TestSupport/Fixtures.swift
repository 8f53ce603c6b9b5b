import Foundation

/// Test media made by the ffmpeg CLI, generated once per test process and shared read-only.
///
/// Each fixture is a small synthetic file with known properties (tone frequencies, test-pattern
/// video, B-frames) so tests can check mediad's outputs against what went in.
public enum Fixtures {
    /// The test process's fixtures, removed when it exits (they reach hundreds of megabytes).
    private static let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mediad-fixtures-\(getpid())"
        ).path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Fixtures.directory) }
        return path
    }()
    private static let lock = NSLock()

    /// Returns the path of fixture `name`, making it with `ffmpeg <arguments> <path>` the first time.
    ///
    /// The file keeps its name in a folder named by a digest of `arguments`, so two suites that happen to
    /// choose the same name for different media each get their own (the first one made used to serve both).
    public static func make(_ name: String, _ arguments: [String]) throws -> String {
        try lock.withLock {
            let folder = directory + "/" + digest(arguments)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/" + name
            if !FileManager.default.fileExists(atPath: path) {
                let temporary = directory + "/.tmp-" + name
                try Command.run("ffmpeg", ["-v", "error", "-y"] + arguments + [temporary])
                try FileManager.default.moveItem(atPath: temporary, toPath: path)
            }
            return path
        }
    }

    /// Writes `text` to a file named `name` beside the fixtures (an input that ffmpeg reads to make one),
    /// removed with them; returns its path.
    public static func writeSideFile(_ name: String, _ text: String) throws -> String {
        try lock.withLock {
            let path = directory + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }

    /// FNV-1a (64 bits) of the arguments, in hex: stable across processes, unlike `Hasher`.
    private static func digest(_ arguments: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in arguments.joined(separator: "\u{0}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
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

    /// 6 s of 854x480 30 fps H.264 (ultrafast, x264's default GOP) and 48 kHz mono AAC: a source for a
    /// ladder of 480p, 360p and 240p, small enough to encode in a second.
    public static func ladderSourceMP4() throws -> String {
        try make(
            "ladder_source.mp4",
            ["-f", "lavfi", "-i", "testsrc2=size=854x480:rate=30:duration=6", "-f", "lavfi", "-i"]
                + ["sine=frequency=440:sample_rate=48000:duration=6", "-c:v", "libx264", "-preset", "ultrafast"]
                + ["-c:a", "aac", "-shortest", "-f", "mp4"])
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

    /// 2 s of 320x240 30 fps H.264 without B-frames (x264 then uses picture order count type 2), in MP4.
    public static func h264NoBFramesMP4() throws -> String {
        try make(
            "h264_nob.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-c:v", "libx264", "-preset",
                "veryfast", "-bf", "0", "-g", "30", "-f", "mp4",
            ])
    }

    /// 3 s of 320x240 24 fps H.264 with an open GOP (non-IDR I-frames whose leading B-frames reference the
    /// previous GOP) and a single IDR, in MP4.
    public static func h264OpenGOPMP4() throws -> String {
        try make(
            "h264_opengop.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=3", "-c:v", "libx264", "-preset",
                "veryfast", "-x264-params", "open-gop=1:keyint=infinite:min-keyint=12:scenecut=0:bframes=3:i-refresh=0",
                "-force_key_frames", "expr:eq(mod(n,20),0)", "-f", "mp4",
            ])
    }

    /// 4 s of 320x240 25 fps H.265 with B-frames and open GOPs (CRA pictures with RASL leading pictures), in
    /// MP4. Picture order count LSBs have 6 bits, so they wrap during the stream.
    public static func hevcMP4() throws -> String {
        try make(
            "hevc.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx265", "-preset",
                "ultrafast", "-x265-params",
                "bframes=4:keyint=20:min-keyint=20:open-gop=1:log2-max-poc-lsb=4:log-level=error",
                "-tag:v", "hvc1", "-f", "mp4",
            ])
    }

    /// The video stream of the MP4 fixture `mp4` as Annex-B (`h264` or `hevc`), copied by ffmpeg.
    public static func annexB(of mp4: String, codec: String) throws -> String {
        let name = URL(fileURLWithPath: mp4).deletingPathExtension().lastPathComponent + "." + codec
        return try make(name, ["-i", mp4, "-map", "0:v", "-c", "copy", "-f", codec])
    }

    /// 2 s of 320x240 25 fps H.265 with B-frames and closed GOPs (IDR_W_RADL keyframes), in MP4.
    public static func hevcClosedGOPMP4() throws -> String {
        try make(
            "hevc_closed.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx265", "-preset",
                "ultrafast", "-x265-params",
                "bframes=3:b-pyramid=1:keyint=15:min-keyint=15:open-gop=0:radl=2:log-level=error",
                "-tag:v", "hvc1", "-f", "mp4",
            ])
    }

    /// 2 s of 320x240 25 fps H.264 High 4:4:4 with custom scaling matrices (in the SPS), weighted P
    /// prediction (a pred_weight_table in P slice headers) and B-pyramid, in MP4.
    public static func h264High444MP4() throws -> String {
        try make(
            "h264_444.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-pix_fmt", "yuv444p", "-c:v",
                "libx264", "-preset", "veryfast", "-bf", "3", "-x264-params", "cqm=jvt:weightp=2:b-pyramid=normal",
                "-f", "mp4",
            ])
    }

    /// 2 s of 320x240 25 fps interlaced (MBAFF, top field first) H.264 with B-frames, in MP4.
    public static func h264InterlacedMP4() throws -> String {
        try make(
            "h264_interlaced.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-preset",
                "veryfast", "-bf", "3", "-flags", "+ildct+ilme", "-x264-params", "tff=1", "-f", "mp4",
            ])
    }
}
