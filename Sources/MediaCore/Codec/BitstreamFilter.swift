import CFFmpeg

/// Owns an `AVBSFContext`: a libav bitstream filter such as `h264_mp4toannexb`.
public final class BitstreamFilter {
    public let context: UnsafeMutablePointer<AVBSFContext>

    /// Creates and initialises filter `name` for a stream with `parameters` in `timeBase`.
    public init(name: String, parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws {
        guard let filter = av_bsf_get_by_name(name) else {
            throw MediaError(.internalError, "libav has no bitstream filter '\(name)'")
        }
        var pointer: UnsafeMutablePointer<AVBSFContext>? = nil
        try LibavError.check(av_bsf_alloc(filter, &pointer), "allocating \(name)", code: .internalError)
        // Configured through the local pointer and stored only once it works: a throw after `context` is
        // set would run `deinit`, which frees the context a second time.
        do {
            try LibavError.check(
                avcodec_parameters_copy(pointer!.pointee.par_in, parameters), "configuring \(name)",
                code: .internalError)
            pointer!.pointee.time_base_in = timeBase
            try LibavError.check(av_bsf_init(pointer), "starting \(name)")
        } catch {
            av_bsf_free(&pointer)
            throw error
        }
        context = pointer!
    }

    deinit {
        var owned: UnsafeMutablePointer<AVBSFContext>? = context
        av_bsf_free(&owned)
    }

    /// Parameters of the filtered stream (e.g. Annex-B extradata after `h264_mp4toannexb`).
    public var outputParameters: UnsafeMutablePointer<AVCodecParameters> { context.pointee.par_out }
    public var outputTimeBase: AVRational { context.pointee.time_base_out }
    public var name: String { String(cString: context.pointee.filter.pointee.name) }

    /// Hands a packet to the filter (its payload is taken over); `nil` signals the end of the stream.
    public func send(_ packet: Packet?) throws {
        try LibavError.check(av_bsf_send_packet(context, packet?.pointer), "\(name) rejected a packet")
    }

    /// Fetches the next filtered packet; false when the filter needs more input or is drained.
    public func receive(into packet: Packet) throws -> Bool {
        let result = av_bsf_receive_packet(context, packet.pointer)
        if result == mediad_averror_eagain() || result == mediad_averror_eof() { return false }
        try LibavError.check(result, "\(name) failed")
        return true
    }
}
