import CFFmpeg
import DurableIO
import Foundation

/// Owns an `AVFormatContext` writing one output file.
///
/// Everything is written to a hidden temporary file beside the destination; `finish()` writes the
/// trailer, syncs the file and renames it into place. If the owner goes away unfinished (an error, a
/// cancellation) the temporary file is removed, so a partial output never appears under its name.
public final class OutputFile {
    public let path: String
    public let temporaryPath: String
    public let context: UnsafeMutablePointer<AVFormatContext>
    private var headerWritten = false
    /// Whether the header reserved room for the `moov` (`moov_size`, see `MovieReservation`).
    private var reservesMovie = false
    private var finished = false
    /// Whether the file is pushed to disk as it is written and synced before it is renamed into place.
    private let durable: Bool
    /// A descriptor of the temporary file for its write-behind (see `write`), when durable.
    private var writebackFD: Int32 = -1
    private var writeBehind: WriteBehind?

    /// How far, in microseconds, a muxer may hold data ahead of its decoding time: 0.7 s, the ffmpeg CLI's
    /// `-muxdelay` default (fftools `init_options` sets `mux_max_delay = 0.7`, `open_output_file` copies it
    /// to `max_delay`). libav's own default leaves it unset, and MPEG-TS then puts the PCR at the video's
    /// decoding time (no T-STD buffer, audio PES late) and writes every AAC frame as its own PES.
    static let maxDelay = Int32(0.7 * Double(AV_TIME_BASE))

    /// A new context for the libav muxer `muxer` writing `path` (nil for a caller that sets up its own
    /// I/O), with libav's log routed to mediad's and the muxing delay every output uses.
    static func formatContext(muxer: String, path: String?) throws -> UnsafeMutablePointer<AVFormatContext> {
        LibavLog.installCallback()
        var pointer: UnsafeMutablePointer<AVFormatContext>? = nil
        try LibavError.check(
            avformat_alloc_output_context2(&pointer, nil, muxer, path), "no libav muxer '\(muxer)'",
            code: .internalError)
        let created = pointer!
        created.pointee.max_delay = maxDelay
        return created
    }

    /// Prepares an output written by the libav muxer called `muxer` (e.g. "mp4", "matroska"). A scratch
    /// file that the same job reads back and removes (a ladder's intermediate) passes `durable: false`:
    /// it is neither written back early nor synced, work that only an output kept needs.
    public init(path: String, muxer: String, durable: Bool = true) throws {
        self.path = path
        self.durable = durable
        temporaryPath = DurableFile.temporaryPath(for: path)
        let created = try Self.formatContext(muxer: muxer, path: temporaryPath)
        let options = LibavDictionary(["protocol_whitelist": "file"])
        let opened = avio_open2(&created.pointee.pb, temporaryPath, AVIO_FLAG_WRITE, nil, &options.pointer)
        // Freed here and stored only on success: a throw after `context` is set would run `deinit`, which
        // frees the context a second time.
        if opened < 0 {
            avformat_free_context(created)
            throw LibavError.error(opened, "cannot create \(path)", code: .ioError)
        }
        context = created
        if durable { writebackFD = open(temporaryPath, O_RDONLY | O_CLOEXEC) }
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
        if writebackFD >= 0 { close(writebackFD) }
        if !finished { unlink(temporaryPath) }
    }

    /// Adds a stream whose parameters are copied from `parameters`.
    @discardableResult
    public func addStream(copying parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws
        -> UnsafeMutablePointer<AVStream>
    {
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError(.internalError, "avformat_new_stream failed")
        }
        try LibavError.check(
            avcodec_parameters_copy(stream.pointee.codecpar, parameters), "copying codec parameters",
            code: .internalError)
        stream.pointee.codecpar.pointee.codec_tag = Self.tag(for: stream.pointee.codecpar.pointee, muxer: muxerName)
        stream.pointee.time_base = timeBase
        if muxerName == "asf", [AV_CODEC_ID_H264, AV_CODEC_ID_HEVC].contains(parameters.pointee.codec_id),
            let extradata = stream.pointee.codecpar.pointee.extradata,
            let fourByte = AnnexB.withFourByteStartCodes(
                Array(UnsafeBufferPointer(start: extradata, count: Int(stream.pointee.codecpar.pointee.extradata_size)))
            )
        {
            // ASF keeps the parameter sets as they are, and readers that are not libav (GStreamer's
            // asfdemux) take them for an avcC record unless they open with a four-byte start code; those
            // libav 5.1 extracts from a raw stream (a mux input) open with a three-byte one.
            try CodecParameters.setExtradata(fourByte, of: stream.pointee.codecpar)
        }
        if parameters.pointee.codec_id == AV_CODEC_ID_FLAC, muxerName == "mp4" {
            // libav 5.1 writes FLAC into MP4 only below normal compliance (the ffmpeg CLI's `-strict -2`);
            // `ContainerFormat.carries` lets no other experimental codec reach this muxer.
            context.pointee.strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL
        }
        return stream
    }

    /// The ISO muxers, which tag H.265 `hev1` unless told otherwise.
    private static let isoMuxers: Set<String> = ["mp4", "mov", "ipod", "3gp"]

    /// The sample entry tag for a new stream: 0 lets the muxer choose, except for H.265 with its parameter
    /// sets in the extradata in an ISO file, which gets `hvc1` (the muxer then writes them into `hvcC` as
    /// complete arrays). libav's default, `hev1`, is refused by Apple's players; the ffmpeg CLI only writes
    /// `hvc1` when asked with `-tag:v hvc1`.
    static func tag(for parameters: AVCodecParameters, muxer: String) -> UInt32 {
        guard parameters.codec_id == AV_CODEC_ID_HEVC, parameters.extradata_size > 0, isoMuxers.contains(muxer)
        else { return 0 }
        return hvc1
    }

    static let hvc1 = "hvc1".utf8.reversed().reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }

    public func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// Writes the container header with muxer `options` (e.g. `movflags`, `moov_size`). An ISO output
    /// that names no `movie_timescale` gets the one that states its edits exactly (`MovieTimescale`).
    public func writeHeader(options given: [String: String] = [:]) throws {
        var options = given
        if Self.isoMuxers.contains(muxerName), options["movie_timescale"] == nil,
            let timescale = MovieTimescale.exact(for: context)
        {
            options["movie_timescale"] = String(timescale)
        }
        if writebackFD >= 0 {
            writeBehind = WriteBehind(fd: writebackFD, dropBehind: !Self.readsBackWhole(options: options))
        }
        let dictionary = LibavDictionary(options)
        try LibavError.check(
            avformat_write_header(context, &dictionary.pointer), "cannot write the \(muxerName) header",
            code: .unsupportedCodec)
        headerWritten = true
        reservesMovie = options["moov_size"] != nil
    }

    /// Whether the mov muxer's trailer reads the whole file back to move its data: `+faststart` (the
    /// `moov` to the front) and `+global_sidx` (the `sidx` there) without room reserved by `moov_size`.
    /// Such a file keeps its pages until then; dropped, they would all be read back from the disk.
    static func readsBackWhole(options: [String: String]) -> Bool {
        guard options["moov_size"] == nil, let flags = options["movflags"] else { return false }
        return flags.contains("faststart") || flags.contains("global_sidx")
    }

    public var muxerName: String { String(cString: context.pointee.oformat.pointee.name) }

    /// Writes a packet whose timestamps are already in its output stream's time base.
    ///
    /// A durable output is written behind (`WriteBehind`): every few megabytes the disk is asked to start
    /// writing what the muxer has written, so that the output is mostly on disk when `finish()` syncs it,
    /// and the pages already on the disk are dropped from the cache, unless the trailer reads the whole
    /// file back (`readsBackWhole`). An output is read once, later (a download, a delivery, a player), and
    /// a cache filled with gigabytes of it only pushes out what others need.
    public func write(_ packet: Packet) throws {
        try LibavError.check(av_interleaved_write_frame(context, packet.pointer), "writing \(muxerName) output")
        writeBehind?.written(upTo: avio_tell(context.pointee.pb))
    }

    /// Writes the trailer, closes the file, lets `rewrite` amend what libav wrote (given the temporary
    /// file's path), syncs the file (when durable), and renames it to `path`. A trailer that fails after a header with
    /// `moov_size` throws `MovieReservation.Overflow`: the file is lost, to be written again with faststart.
    public func finish(rewrite: ((String) throws -> Void)? = nil) throws {
        guard headerWritten else { throw MediaError(.internalError, "finish() before writeHeader()") }
        do {
            try LibavError.check(av_write_trailer(context), "finishing \(muxerName) output", code: .ioError)
        } catch  where reservesMovie {
            throw MovieReservation.Overflow(underlying: error)
        }
        try LibavError.check(avio_closep(&context.pointee.pb), "closing \(path)", code: .ioError)
        try rewrite?(temporaryPath)
        if durable { try MediaError.fromFileSystem { try DurableFile.syncFile(atPath: temporaryPath) } }
        guard rename(temporaryPath, path) == 0 else {
            throw MediaError(.ioError, "cannot rename output to \(path): \(String(cString: strerror(errno)))")
        }
        finished = true
        if durable { try MediaError.fromFileSystem { try DurableFile.syncDirectory(containing: path) } }
    }
}
