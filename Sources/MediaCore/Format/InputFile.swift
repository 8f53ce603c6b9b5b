import CFFmpeg
import Foundation

/// Owns an `AVFormatContext` opened for reading one local file under an `InputPolicy`.
///
/// The file is opened by mediad itself (`file` protocol only) and handed to the forced demuxer as
/// custom I/O; libav's `io_open` is replaced by one that refuses everything, so no demuxer can open
/// a second file or a URL.
public final class InputFile {
    public let path: String
    public let container: InputContainer
    /// Size of the file in bytes when it was opened; for a file still arriving, the size it will have.
    public let size: Int64
    public let context: UnsafeMutablePointer<AVFormatContext>
    /// What this input was opened under; its decoders are the only ones a job may open for it.
    public let policy: InputPolicy
    /// An ISO file with movie fragments (`moof`), whose index grows as the fragments are read; false for
    /// any other container.
    public let hasMovieFragments: Bool
    /// What is cut or malformed in the input (salvaged under `policy.damaged`): found before libav read
    /// it, and, once reading ends, the error that ended it early. Empty for a sound file.
    public private(set) var damage: InputDamage
    /// Packets read so far, by stream index.
    public private(set) var packetsRead: [Int: Int] = [:]
    /// Where the packets read so far end (largest pts + duration), by stream index, in the stream's time base.
    public private(set) var readEnds: [Int: Int64] = [:]
    private var io: UnsafeMutablePointer<AVIOContext>?
    /// The I/O of an input still arriving (`ArrivingFiles`), which owns `io`; nil for a whole file.
    private var arriving: ArrivingInputIO?

    /// Sniffs `path` and opens it if it is one of `accepted`, else throws `unsupported_format`.
    public convenience init(path: String, accepting accepted: [InputContainer], policy: InputPolicy) throws {
        let container = try InputFile.classify(path: path, accepting: accepted)
        try self.init(path: path, container: container, policy: policy)
    }

    /// Opens `path` with the demuxer of `container` forced; libav may run only the policy's decoders over it.
    public init(path: String, container: InputContainer, policy: InputPolicy) throws {
        LibavLog.installCallback()
        LibavLog.clearLastError()
        self.path = path
        self.container = container
        self.size = ArrivingFiles.finalSize(of: path) ?? InputFile.fileSize(path)
        if container == .mp4 {
            let inspection = try ISOBoxValidator.validate(
                path: path, maxTracks: Int(policy.maxStreams), damaged: policy.damaged)
            hasMovieFragments = inspection.fragmented
            damage = inspection.damage
        } else {
            hasMovieFragments = false
            damage = container == .wav ? try WAVHeaderValidator.validate(path: path, damaged: policy.damaged) : .init()
        }

        var io: UnsafeMutablePointer<AVIOContext>? = nil
        let arriving = try ArrivingFiles.finalSize(of: path).map { try ArrivingInputIO(path: path, size: $0) }
        if let arriving {
            io = arriving.context
        } else {
            let ioOptions = LibavDictionary(["protocol_whitelist": "file"])
            try LibavError.check(
                avio_open2(&io, "file:" + path, AVIO_FLAG_READ, nil, &ioOptions.pointer), "cannot open \(path)",
                code: .ioError)
        }
        // An arriving file's context is its `ArrivingInputIO`'s, freed with it.
        func closeIO() { if arriving == nil { avio_closep(&io) } }
        guard var context = avformat_alloc_context() else {
            closeIO()
            throw MediaError(.internalError, "avformat_alloc_context failed")
        }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        context.pointee.max_streams = policy.maxStreams
        context.pointee.io_open = { _, _, _, _, _ in mediad_averror(EPERM) }

        let options = LibavDictionary([
            "format_whitelist": container.demuxerName,
            "protocol_whitelist": "file",
            "codec_whitelist": policy.codecWhitelist,
            "probesize": String(policy.probeSize),
            "analyzeduration": String(policy.analyzeDuration),
        ])
        if container == .mp4 {
            options.set("enable_drefs", "0")
            options.set("use_absolute_path", "0")
        }
        var contextPointer: UnsafeMutablePointer<AVFormatContext>? = context
        let demuxer = av_find_input_format(container.demuxerName)
        let opened = avformat_open_input(&contextPointer, nil, demuxer, &options.pointer)
        if opened < 0 {
            closeIO()
            // libav reports a stream count over `max_streams` as ENOMEM; its log line says which it was.
            let detail = LibavLog.takeLastError()
            if detail?.contains("max_streams") == true {
                throw MediaError(.invalidInput, "the input has more than \(policy.maxStreams) streams, over the limit")
            }
            let failure = LibavError.error(opened, "cannot read \(container.displayName) input", detail: detail)
            // Salvaging found the file cut short, and what is left is not enough for libav to read.
            if let cut = damage.findings.first(where: { $0.code == .truncatedInput }) {
                throw MediaError(.truncatedInput, "\(cut.message); what is left cannot be read (\(failure.message))")
            }
            throw failure
        }
        context = contextPointer!
        self.context = context
        self.io = io
        self.arriving = arriving
        self.policy = policy
        try checkDimensions()
    }

    /// Refuses video whose declared size is over the policy's bound, before any decoder allocates a
    /// frame of it (a tiny file can declare 60000x60000).
    private func checkDimensions() throws {
        for stream in streams where stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            let (width, height) = (stream.pointee.codecpar.pointee.width, stream.pointee.codecpar.pointee.height)
            if width > policy.maxDimension || height > policy.maxDimension {
                throw MediaError(
                    .invalidInput,
                    "track \(stream.pointee.index) declares \(width)x\(height) video, over the \(policy.maxDimension)-pixel limit"
                )
            }
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&pointer)
        if arriving == nil { avio_closep(&io) }
    }

    /// Sniffs `path` and returns its container if it is one of `accepted`.
    public static func classify(path: String, accepting accepted: [InputContainer]) throws -> InputContainer {
        let verdict = try InputSniffer.sniff(path: path)
        switch verdict {
        case .empty:
            throw MediaError(.emptyInput, "the input file is empty")
        case .container(let container) where accepted.contains(container):
            return container
        case .container(let container):
            throw MediaError(
                .unsupportedFormat,
                "the input is \(container.displayName); expected \(accepted.map(\.displayName).joined(separator: ", "))"
            )
        case .foreign, .unrecognized:
            let what = if case .foreign(let name) = verdict { name } else { "unknown binary data" }
            throw MediaError(
                .unsupportedFormat,
                "the input is \(what), not a media format this job accepts (\(accepted.map(\.displayName).joined(separator: ", ")))"
            )
        }
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Reads stream parameters that the header alone does not give.
    public func findStreamInfo() throws {
        try LibavError.check(avformat_find_stream_info(context, nil), "cannot read stream parameters")
        try checkDimensions()
    }

    public var streamCount: Int { Int(context.pointee.nb_streams) }

    public func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
        context.pointee.streams[index]!
    }

    public var streams: [UnsafeMutablePointer<AVStream>] { (0..<streamCount).map(stream) }

    /// Reads the next packet; returns false at the end of the file.
    ///
    /// A read error of the input's data (not of the disk) ends the reading as the end of the file would
    /// when the policy salvages damaged input, as the ffmpeg CLI ends its reading, and is kept in
    /// `damage`; it throws otherwise.
    public func read(into packet: Packet) throws -> Bool {
        packet.unref()
        let result = av_read_frame(context, packet.pointer)
        if result == mediad_averror_eof() { return false }
        if result < 0 {
            let detail = LibavLog.takeLastError()
            let error = LibavError.error(result, "reading \(container.displayName) input", detail: detail)
            guard policy.damaged == .salvage, [.invalidInput, .truncatedInput].contains(error.code) else { throw error }
            damage.append(
                MediaError(
                    error.code,
                    "reading stopped at byte \(position) of \(size): \(LibavError.text(result))"
                        + (detail.map { " (\($0))" } ?? "")))
            return false
        }
        let index = packet.streamIndex
        // The cover libav makes of a picture track's first sample comes first, sharing its buffer: not a
        // sample of the track's tables.
        let cover = stream(index).pointee.attached_pic.buf
        if cover == nil || packet.pointer.pointee.buf?.pointee.data != cover?.pointee.data {
            packetsRead[index, default: 0] += 1
        }
        if let start = packet.pts ?? packet.dts {
            let (end, overflow) = start.addingReportingOverflow(max(0, packet.duration))
            if !overflow { readEnds[index] = max(readEnds[index] ?? end, end) }
        }
        return true
    }

    /// The byte offset reached so far, for progress.
    public var position: Int64 { io.map { avio_tell($0) } ?? 0 }

    /// Fraction of the file read so far, 0…1.
    public var progress: Double { size > 0 ? min(1, max(0, Double(position) / Double(size))) : 0 }

    /// When the input's timeline starts, in seconds (MPEG-TS often starts at 1.4 s); 0 when not stated.
    public var startTime: Double {
        let value = context.pointee.start_time
        return value == mediad_nopts_value() ? 0 : Double(value) / Double(AV_TIME_BASE)
    }

    /// Duration in seconds, if the container states one.
    public var duration: Double? {
        let value = context.pointee.duration
        return value == mediad_nopts_value() || value <= 0 ? nil : Double(value) / Double(AV_TIME_BASE)
    }
}
