import CFFmpeg

/// Owns one `AVPacket`.
public final class Packet: LibavObject<AVPacket> {
    public init() {
        super.init("av_packet_alloc", allocate: av_packet_alloc, free: { av_packet_free(&$0) })
    }

    /// A new packet sharing this one's payload (reference-counted) with the same properties.
    public func clone() throws -> Packet {
        let copy = Packet()
        try LibavError.check(av_packet_ref(copy.pointer, pointer), "copying a packet", code: .internalError)
        return copy
    }

    /// Samples the decoder should drop from the start of this packet (AAC priming under an edit list).
    public var skipSamplesAtStart: Int {
        var size: Int = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 4 else { return 0 }
        return Int(data[0]) | Int(data[1]) << 8 | Int(data[2]) << 16 | Int(data[3]) << 24
    }

    /// Clears what tells a decoder to hide samples (the discard flag, the skip-samples side data), so it
    /// returns everything the packet decodes to.
    public func revealHiddenSamples() {
        pointer.pointee.flags &= ~AV_PKT_FLAG_DISCARD
        av_packet_free_side_data(pointer)
    }

    /// Drops the payload and side data, keeping the allocation for reuse.
    public func unref() { av_packet_unref(pointer) }

    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }
    public var pts: Int64? {
        get { pointer.pointee.pts == mediad_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? mediad_nopts_value() }
    }
    public var dts: Int64? {
        get { pointer.pointee.dts == mediad_nopts_value() ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? mediad_nopts_value() }
    }
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    public var isKeyframe: Bool {
        get { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
        set {
            if newValue { pointer.pointee.flags |= AV_PKT_FLAG_KEY } else { pointer.pointee.flags &= ~AV_PKT_FLAG_KEY }
        }
    }
    /// Packets the demuxer wants decoded but not shown (e.g. pre-roll before an edit list start).
    public var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
    public var size: Int { Int(pointer.pointee.size) }

    /// The payload bytes, valid until the packet changes.
    public var data: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))
    }

    /// Replaces the payload with a copy of `bytes`, keeping timestamps and flags.
    public func setData(_ bytes: [UInt8]) throws {
        let (pts, dts, duration, flags, index) = (
            pointer.pointee.pts, pointer.pointee.dts, pointer.pointee.duration, pointer.pointee.flags,
            pointer.pointee.stream_index
        )
        av_packet_unref(pointer)
        try LibavError.check(av_new_packet(pointer, Int32(bytes.count)), "allocating a packet", code: .internalError)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.pointee.data.update(from: base, count: bytes.count) }
        }
        pointer.pointee.pts = pts
        pointer.pointee.dts = dts
        pointer.pointee.duration = duration
        pointer.pointee.flags = flags
        pointer.pointee.stream_index = index
    }

    /// Converts timestamps and duration from one time base to another.
    public func rescale(from source: AVRational, to target: AVRational) {
        av_packet_rescale_ts(pointer, source, target)
    }
}
