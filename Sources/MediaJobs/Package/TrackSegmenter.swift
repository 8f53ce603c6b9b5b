import CFFmpeg
import MediaCore

/// Cuts one track into media segments with a muxer of its own (`mp4` with caller-flushed fragments, or
/// `mpegts`), writes each segment as a file of its folder, and remembers each one's presentation span
/// and size for the manifests.
///
/// AAC in ADTS frames (MPEG-TS sources) goes into fMP4 through `aac_adtstoasc`, which learns the
/// AudioSpecificConfig from the first frame: the initialization segment, which holds it, is then written
/// once that frame has been filtered.
final class TrackSegmenter {
    /// One media segment written.
    struct Segment {
        /// Its output name, `720p/seg_00001.m4s`.
        let name: String
        /// The earliest presentation time and the latest presentation end of its samples, in `timeBase`.
        let start: Int64
        let end: Int64
        let bytes: Int
        /// fMP4 video segments that open with a keyframe: the bytes from the segment's start through that
        /// frame's data (its `moof`, the `mdat` header, the frame), the range an I-frame playlist gives.
        let keyframeBytes: Int?
    }

    let track: PackagePlan.Track
    /// The initialization segment's output name (fMP4 only).
    private(set) var initialization: String?
    /// The output stream's time base once the header is written: the fMP4 track's timescale, or 90 kHz
    /// for MPEG-TS.
    private(set) var timeBase: AVRational
    private(set) var segments: [Segment] = []
    private let output: SegmentedOutput
    private let files: PackageFiles
    private let segmentFormat: PackageJob.SegmentFormat
    private var inputTimeBase: AVRational
    private let conversion: BitstreamFilter?
    private let converted = Packet()
    private var headerWritten = false
    private var span: (start: Int64, end: Int64)?
    /// Whether the current segment's first packet is a keyframe.
    private var opensWithKeyframe = false
    private var decodeOrder = IncreasingDecodeTimes()

    /// The fMP4 muxer's settings: fragments only where `flush()` asks, an empty `moov` in the initialization
    /// segment, fragments addressed from their own `moof` (CMAF), no `mfra` index, and no edit list, since
    /// every track already starts from the package's common origin.
    private static let fragmentOptions = [
        "movflags": "+frag_custom+empty_moov+default_base_moof+skip_trailer+cmaf", "use_editlist": "0",
    ]

    init(
        track: PackagePlan.Track, source: UnsafeMutablePointer<AVStream>, segmentFormat: PackageJob.SegmentFormat,
        files: PackageFiles
    ) throws {
        self.track = track
        self.files = files
        self.segmentFormat = segmentFormat
        inputTimeBase = source.pointee.time_base
        timeBase = source.pointee.time_base
        output = try SegmentedOutput(muxer: segmentFormat == .ts ? "mpegts" : "mp4")
        try output.addStream(copying: source)
        let parameters = source.pointee.codecpar.pointee
        let adts = parameters.codec_id == AV_CODEC_ID_AAC && parameters.extradata_size == 0
        conversion =
            segmentFormat == .fmp4 && adts
            ? try BitstreamFilter(name: "aac_adtstoasc", parameters: source.pointee.codecpar, timeBase: inputTimeBase)
            : nil
        if conversion == nil { try writeHeader() }
    }

    /// Writes the header: for fMP4 the initialization segment, `init.mp4` (`init.m4a` for audio).
    private func writeHeader() throws {
        if let conversion {
            let stream = output.stream(0)
            try LibavError.check(
                avcodec_parameters_copy(stream.pointee.codecpar, conversion.outputParameters),
                "configuring the AAC track", code: .internalError)
            // The source's tag is its container's (MPEG-TS stream type 15): the mp4 muxer picks its own.
            stream.pointee.codecpar.pointee.codec_tag = 0
            inputTimeBase = conversion.outputTimeBase
        }
        try output.writeHeader(options: segmentFormat == .ts ? [:] : Self.fragmentOptions)
        headerWritten = true
        timeBase = output.stream(0).pointee.time_base
        if segmentFormat == .fmp4 {
            let name = "\(track.folder)/init.\(track.isVideo ? "mp4" : "m4a")"
            try files.write(try output.takeBytes(), as: name)
            initialization = name
        }
    }

    /// Writes `packet` (timestamps in the input stream's time base, already moved to the package origin)
    /// into the current segment.
    func write(_ packet: Packet) throws {
        guard let conversion else { return try mux(packet) }
        try conversion.send(packet)
        while try conversion.receive(into: converted) {
            if !headerWritten { try writeHeader() }
            try mux(converted)
        }
    }

    private func mux(_ packet: Packet) throws {
        if span == nil {
            if !segments.isEmpty, segmentFormat == .ts { output.repeatTransportTables() }
            opensWithKeyframe = packet.isKeyframe
        }
        packet.rescale(from: inputTimeBase, to: timeBase)
        try decodeOrder.admit(
            packet, track: track.sourceIndex, timeBase: timeBase,
            allowsEqual: output.context.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT != 0)
        packet.streamIndex = 0
        packet.pointer.pointee.pos = -1
        if let start = packet.pts ?? packet.dts {
            let end = start + packet.duration
            span = span.map { (min($0.start, start), max($0.end, end)) } ?? (start, end)
        }
        try output.write(packet)
    }

    /// What had to move for the segments' muxer (see `IncreasingDecodeTimes`).
    var warnings: [String] {
        decodeOrder.warnings(
            codecs: [track.sourceIndex: track.codec], format: segmentFormat == .ts ? "MPEG-TS" : "fMP4")
    }

    /// Ends the current segment and writes its file; nothing when no packet went into it.
    func closeSegment() throws {
        guard let span else { return }
        try output.flush()
        let bytes = try output.takeBytes()
        let name = "\(track.folder)/seg_\(Self.number(segments.count + 1)).\(segmentFormat == .ts ? "ts" : "m4s")"
        try files.write(bytes, as: name)
        segments.append(
            Segment(
                name: name, start: span.start, end: span.end, bytes: bytes.count,
                keyframeBytes: keyframeRange(in: bytes)))
        self.span = nil
    }

    /// The bytes of `segment` up to the end of its opening keyframe, for fMP4 video.
    private func keyframeRange(in segment: SegmentBytes) -> Int? {
        guard track.isVideo, segmentFormat == .fmp4, opensWithKeyframe else { return nil }
        return segment.withUnsafeBytes { FragmentKeyframe.rangeEnd(in: $0) }
    }

    /// Closes the last segment and the muxer (which never started when no packet came).
    func finish() throws {
        try closeSegment()
        if headerWritten { try output.finish() }
    }

    /// Five digits at least: `00001`.
    static func number(_ value: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// Each segment's duration in `timeBase`: from its start to the next one's, the last to its own end,
    /// so the durations add up to the track's whole span with no gap (a DASH `SegmentTimeline`'s `d`).
    var ticks: [Int64] {
        segments.indices.map { index in
            (index + 1 < segments.count ? segments[index + 1].start : segments[index].end) - segments[index].start
        }
    }

    /// `ticks` in seconds (HLS `#EXTINF`).
    var durations: [Double] { ticks.map { Double($0) * av_q2d(timeBase) } }
}
