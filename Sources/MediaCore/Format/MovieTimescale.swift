import CFFmpeg

/// The movie timescale that lets libav 5.1's mov muxer write every track's edit exactly.
///
/// The muxer counts the durations of edit lists (and of `tkhd` and `mvhd`) in the movie timescale, 1000 by
/// default, rounding down. An AAC track whose edit hides the priming then ends short of its last sample:
/// 284,672 samples at 48 kHz are 5,930.67 ms, written as 5,930, and a player cuts the last 32 samples (the
/// ffmpeg CLI does the same with `-copyts`). A movie timescale that every track's timescale divides states
/// each edit to the sample, so the copy shows every sample the input did.
public enum MovieTimescale {
    /// The largest timescale chosen. Past about 2^32 / timescale seconds the muxer writes 64-bit (version 1)
    /// boxes, which every parser reads; the bound keeps that past 7 minutes even in the worst case and is
    /// far above 720,000, the timescale of 90 kHz video with 48 kHz audio.
    static let ceiling: Int64 = 10_000_000

    /// The timescale for the streams of `context`, an ISO output before its header: the least common
    /// multiple of the track timescales the muxer will use, or of the audio ones alone when all of them
    /// would pass `ceiling`; nil when even that does (the muxer's default then stays).
    public static func exact(for context: UnsafeMutablePointer<AVFormatContext>) -> Int32? {
        var audio: Int64 = 1
        var all: Int64 = 1
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], let scale = trackTimescale(of: stream) else { continue }
            all = leastCommonMultiple(all, scale)
            if stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
                audio = leastCommonMultiple(audio, scale)
            }
        }
        let chosen = [all, audio].first { $0 <= ceiling }
        return chosen.flatMap { $0 > 1 ? Int32($0) : nil }
    }

    /// The timescale libav 5.1's mov muxer gives a stream's track (`mov_init`): an audio track counts in
    /// samples, a video track in its time base doubled until it reaches 10,000, any other in its time base.
    static func trackTimescale(of stream: UnsafeMutablePointer<AVStream>) -> Int64? {
        let parameters = stream.pointee.codecpar.pointee
        var scale: Int64
        switch parameters.codec_type {
        case AVMEDIA_TYPE_AUDIO:
            scale = Int64(parameters.sample_rate)
        case AVMEDIA_TYPE_VIDEO:
            scale = Int64(stream.pointee.time_base.den)
            while scale > 0, scale < 10_000 { scale *= 2 }
        default:
            scale = Int64(stream.pointee.time_base.den)
        }
        return scale > 0 ? scale : nil
    }

    /// The least common multiple, saturating past `ceiling` so that it never overflows.
    static func leastCommonMultiple(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        let multiple = a / x
        return multiple > ceiling / b ? ceiling + 1 : multiple * b
    }
}
