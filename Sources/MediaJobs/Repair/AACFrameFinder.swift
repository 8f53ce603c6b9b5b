import CFFmpeg
import MediaCore

/// Finds the length of the raw AAC frame (a `raw_data_block()`) at a position, with libav's AAC decoder.
///
/// A raw frame in MP4 carries no length: it ends with the END element and byte alignment. libav 5.1's
/// decoder (`aac_decode_frame_int`) checks after every element that at least three bits are left for the
/// next element type, failing with "Input buffer exhausted before END element found" otherwise, and it
/// ignores whatever follows END. So a packet of the frame's first `n` bytes decodes exactly when `n` is at
/// least the frame's length, and the frame's length is the smallest `n` that decodes: a binary search,
/// with the decoder flushed before each try so no try leans on the one before.
///
/// Random bytes decode now and then (under 1 % of positions); callers weigh that with what follows.
final class AACFrameFinder {
    /// The most bytes one frame may take: 6144 bits per channel (ISO 14496-3 4.5.3.2).
    let maxFrameSize: Int
    let channels: Int
    private let makeDecoder: () throws -> Decoder
    private var decoder: Decoder
    private let packet = Packet()
    private let frame = Frame()
    /// The last answer, which a look-ahead and the step after it both ask for.
    private var remembered: (offset: Int64, end: Int64, frame: (size: Int, samples: Int)?)?

    /// `makeDecoder` opens a decoder configured as the reference's AAC track.
    init(channels: Int, makeDecoder: @escaping () throws -> Decoder) throws {
        self.channels = max(1, channels)
        maxFrameSize = 768 * self.channels
        self.makeDecoder = makeDecoder
        decoder = try Self.prepared(makeDecoder())
    }

    /// A decoder whose log lines are dropped (most tries fail on purpose, and each failure logs an error)
    /// and that skips no samples itself: libav's AAC decoder drops the output of a frame that names
    /// libfaac in a fill element (its priming) and then decodes the bytes after it in the same packet as
    /// another frame, which would hide where the frame ends.
    private static func prepared(_ decoder: Decoder) -> Decoder {
        decoder.context.pointee.log_level_offset = AV_LOG_TRACE - AV_LOG_ERROR
        decoder.context.pointee.flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL
        return decoder
    }

    /// The length and sample count (0 for a frame without audio) of the frame at `offset`, reading nothing
    /// at or past `end`; nil when no whole frame starts there.
    func frame(at offset: Int64, end: Int64, in window: ByteWindow) throws -> (size: Int, samples: Int)? {
        if let remembered, remembered.offset == offset, remembered.end == end { return remembered.frame }
        let found = try search(at: offset, end: end, in: window)
        remembered = (offset, end, found)
        return found
    }

    /// The binary search over the length of the frame at `offset` (see the type's description).
    private func search(at offset: Int64, end: Int64, in window: ByteWindow) throws -> (size: Int, samples: Int)? {
        let available = Int(min(Int64(maxFrameSize), end - offset))
        guard available > 0 else { return nil }
        let bytes = try window.bytes(at: offset, count: available)
        if let silent = SilentAACFrame.length(of: bytes) {
            return try decodes(bytes, count: silent) == 0 ? (silent, 0) : nil
        }
        guard let samples = try decodes(bytes, count: available) else { return nil }
        var low = 1
        var high = available
        var highSamples = samples
        while low < high {
            let middle = (low + high) / 2
            if let count = try decodes(bytes, count: middle) {
                high = middle
                highSamples = count
            } else {
                low = middle + 1
            }
        }
        return (high, highSamples)
    }

    /// The samples the first `count` of `bytes` decode to as one frame of the reference's layout (0 for a
    /// frame without audio elements, which the decoder takes without giving a frame), or nil.
    private func decodes(_ bytes: [UInt8], count: Int) throws -> Int? {
        avcodec_flush_buffers(decoder.context)
        try packet.setData(Array(bytes[0..<count]))
        guard avcodec_send_packet(decoder.context, packet.pointer) >= 0 else { return nil }
        let received = avcodec_receive_frame(decoder.context, frame.pointer)
        if received == mediad_averror_eagain() { return 0 }
        guard received >= 0 else { return nil }
        defer { frame.unref() }
        let samples = frame.sampleCount
        guard Int(frame.pointer.pointee.ch_layout.nb_channels) == channels, [960, 1024, 2048].contains(samples)
        else {
            // Bytes that decoded as a program configuration changed the decoder's layout: start afresh.
            decoder = try Self.prepared(makeDecoder())
            return nil
        }
        return samples
    }
}
