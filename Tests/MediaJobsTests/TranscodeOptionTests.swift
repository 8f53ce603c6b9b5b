import MediaCore
import MediaJobs
import Testing

/// Options no encoder or container can honour are refused with `invalid_option` and the reason, before
/// any input is opened.
@Suite struct TranscodeOptionTests {
    static let refused: [([String: String], String)] = [
        (["crf": "20", "video_bitrate": "2M"], "alternatives"),
        (["profile": "baseline", "bframes": "2"], "no B-frames"),
        (["profile": "main10"], "h264 has no main10 profile"),
        (["format": "ts", "video_codec": "vp9"], "ts cannot carry vp9"),
        (["format": "webm", "video_codec": "h264"], "webm cannot carry h264"),
        (["format": "webm", "video_codec": "hevc"], "webm cannot carry hevc"),
        (["format": "webm", "audio_codec": "aac"], "webm cannot carry aac"),
        (["format": "m4a", "video_codec": "h264"], "audio only"),
        (["width": "8"], "expected an integer from 16 to 16384"),
        (["height": "16386"], "expected an integer from 16 to 16384"),
        (["width": "321"], "must be even"),
        (["fps": "0"], "frames per second from 1 to 240"),
        (["fps": "241"], "frames per second from 1 to 240"),
        (["fps": "-5"], "frames per second from 1 to 240"),
        (["video_bitrate": "1k"], "bits per second from 16000"),
        (["video_bitrate": "300M"], "bits per second from 16000"),
        (["audio_bitrate": "4k"], "bits per second from 8000"),
        (["audio_codec": "mp3", "audio_bitrate": "500k"], "outside 8000...320000"),
        (["crf": "60"], "outside 0...51 for h264"),
        (["video_bitrate": "2M", "max_bitrate": "1M"], "below video_bitrate"),
        (["buffer_size": "2M"], "give max_bitrate too"),
        (["video_codec": "vp9", "bframes": "2", "format": "webm"], "no B-frames"),
        (["video_codec": "av1", "profile": "main"], "profile applies to h264 and hevc"),
        (["level": "7"], "h264 has no level 7"),
        (["video_codec": "av1", "pixel_format": "yuv444p"], "takes no yuv444p"),
        (["profile": "high", "pixel_format": "yuv444p"], "cannot code yuv444p"),
        (["video_codec": "copy", "width": "320"], "width applies only when video is encoded"),
        (["video_codec": "none", "crf": "20"], "crf applies only when video is encoded"),
        (["audio_codec": "none", "audio_bitrate": "96k"], "applies only when audio is encoded"),
        (["audio_codec": "opus", "sample_rate": "44100"], "opus cannot be coded at 44100 Hz"),
        (["audio_codec": "mp3", "channels": "6"], "at most 2 channels"),
        (["start": "5", "end": "2"], "must be after start"),
        (["video_codec": "copy", "start": "1"], "keyframes"),
        (["format": "mkv", "fragmented": "true"], "fragmented applies to mp4"),
        (["video_codec": "none", "audio_codec": "none"], "both none"),
        (["video_codec": "copy", "measure": "ssim"], "measure applies only"),
        (["rotation": "auto"], "unknown option"),
        (["loudness": "-80"], "expected an integer from -70 to -5"),
        (["loudness": "0"], "expected an integer from -70 to -5"),
        (["true_peak": "-2"], "give loudness too"),
        (["loudness": "-16", "true_peak": "1"], "expected an integer from -9 to 0"),
        (["loudness": "-16", "audio_codec": "copy"], "loudness applies only when audio is encoded"),
    ]

    @Test(arguments: refused)
    func refusesWithTheReason(values: [String: String], reason: String) {
        let error = #expect(throws: MediaError.self) { try TranscodeJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains(reason) == true, "\(values): \(error?.message ?? "")")
    }

    @Test func appliesTheFormatsDefaults() throws {
        let webm = try TranscodeJob.Options(parsing: ["format": "webm"])
        #expect(webm.videoCodec == .vp9)
        let audio = try TranscodeJob.Options(parsing: ["format": "mp3"])
        #expect(audio.videoCodec == .none)
        let vbv = try TranscodeJob.Options(parsing: ["video_bitrate": "2M", "max_bitrate": "3M"])
        #expect(vbv.bufferSize == 6_000_000 && vbv.crf == nil)
        #expect(
            try TranscodeJob.Options(parsing: ["fps": "29.97"]).fps == FrameRate(numerator: 30000, denominator: 1001))
    }
}
