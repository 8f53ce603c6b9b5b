import CFFmpeg

/// Owns an `AVFormatContext` whose output is cut into separate byte strings: an fMP4 initialization
/// segment and media segments (the `mp4` muxer with caller-flushed fragments), or MPEG-TS segments.
///
/// The muxer writes into a libav dynamic buffer; `takeBytes()` hands over what it wrote since the last
/// call and gives it a fresh buffer, as libav's own DASH muxer does between fragments. Nothing touches
/// the disk here: the caller names and stores each segment.
public final class SegmentedOutput {
    public let context: UnsafeMutablePointer<AVFormatContext>
    private var headerWritten = false

    /// Prepares an output for the libav muxer `muxer` (`mp4` or `mpegts`).
    public init(muxer: String) throws {
        let created = try OutputFile.formatContext(muxer: muxer, path: nil)
        // Every track has a muxer of its own: letting each shift its own timestamps to zero would move
        // the tracks apart. The caller makes them non-negative with one origin for all.
        created.pointee.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED
        let opened = avio_open_dyn_buf(&created.pointee.pb)
        if opened < 0 {
            avformat_free_context(created)
            throw LibavError.error(opened, "cannot allocate a segment buffer", code: .internalError)
        }
        context = created
    }

    deinit {
        discardBuffer()
        avformat_free_context(context)
    }

    public var muxerName: String { String(cString: context.pointee.oformat.pointee.name) }

    /// Adds a stream copying `source`'s codec parameters and the properties a stream copy keeps
    /// (`StreamCopy.carryProperties`); H.265 in fMP4 is tagged `hvc1`.
    @discardableResult
    public func addStream(copying source: UnsafeMutablePointer<AVStream>) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError(.internalError, "avformat_new_stream failed")
        }
        try LibavError.check(
            avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), "copying codec parameters",
            code: .internalError)
        stream.pointee.codecpar.pointee.codec_tag = OutputFile.tag(
            for: stream.pointee.codecpar.pointee, muxer: muxerName)
        stream.pointee.time_base = source.pointee.time_base
        try StreamCopy.carryProperties(from: source, to: stream)
        return stream
    }

    public func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// Writes the container header with muxer `options`; for fMP4 this is the initialization segment.
    public func writeHeader(options: [String: String]) throws {
        let dictionary = LibavDictionary(options)
        try LibavError.check(
            avformat_write_header(context, &dictionary.pointer), "cannot write the \(muxerName) header",
            code: .unsupportedCodec)
        headerWritten = true
    }

    /// Writes a packet whose timestamps are in its output stream's time base. The muxer keeps it until
    /// `flush()` for fMP4; MPEG-TS writes it (nearly) at once.
    public func write(_ packet: Packet) throws {
        try LibavError.check(av_write_frame(context, packet.pointer), "writing \(muxerName) segment")
    }

    /// Ends the current fragment (fMP4: one `moof`+`mdat`) or writes out the PES data MPEG-TS still holds.
    public func flush() throws {
        try LibavError.check(av_write_frame(context, nil), "flushing a \(muxerName) segment")
    }

    /// Asks the MPEG-TS muxer to write its PAT and PMT again before the next packet, so each segment can
    /// be decoded on its own.
    public func repeatTransportTables() {
        av_opt_set(context.pointee.priv_data, "mpegts_flags", "+resend_headers", 0)
    }

    /// The bytes written since the last call, handing the muxer an empty buffer for what comes next. The
    /// buffer libav wrote them into changes hands, uncopied.
    public func takeBytes() throws -> SegmentBytes {
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let size = avio_close_dyn_buf(context.pointee.pb, &buffer)
        context.pointee.pb = nil
        let bytes = SegmentBytes(buffer, count: Int(max(0, size)))
        try LibavError.check(
            avio_open_dyn_buf(&context.pointee.pb), "allocating a segment buffer", code: .internalError)
        return bytes
    }

    /// Writes the trailer and drops what it wrote: segments carry everything a player needs, and an fMP4
    /// trailer (`mfra`) belongs to no segment.
    public func finish() throws {
        guard headerWritten else { throw MediaError(.internalError, "finish() before writeHeader()") }
        try LibavError.check(av_write_trailer(context), "finishing \(muxerName) segments", code: .ioError)
        discardBuffer()
    }

    private func discardBuffer() {
        guard context.pointee.pb != nil else { return }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        _ = avio_close_dyn_buf(context.pointee.pb, &buffer)
        av_free(buffer)
        context.pointee.pb = nil
    }
}
