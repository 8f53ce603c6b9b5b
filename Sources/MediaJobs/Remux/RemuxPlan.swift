import CFFmpeg
import MediaCore

/// Decides which input tracks a remux keeps, which muxer writes them, and sets up the output streams.
final class RemuxPlan {
    /// One kept track: where it comes from, where it goes, and any bitstream conversion on the way.
    struct Route {
        let inputIndex: Int
        let outputIndex: Int
        let kind: AVMediaType
        let codec: String
        let inputTimeBase: AVRational
        let filter: BitstreamFilter?
        /// AMR-NB samples with several frames (3GP phone recordings pack up to 50) become one packet per
        /// frame: the ISO muxers require it, and libav's AMR decoder reads only the first frame of a packet,
        /// so a Matroska file of packed samples played a fifth or less of the audio.
        let splitsAMRFrames: Bool
        /// Where the track ends (start + duration) in its time base, when the container says.
        let inputEnd: Int64?
        /// A track of pictures shown in turn (an enhanced podcast's chapter pictures, which libav marks as
        /// timed thumbnails and also hands over as the input's cover art): copied as a video track with
        /// every picture libav reads of it, the cover it makes of the first one included.
        let isPictureTrack: Bool
    }

    private(set) var routes: [Int: Route] = [:]
    private(set) var warnings: [String] = []
    /// The input's cover art the target keeps.
    let coverArt: CoverArt
    let muxer: String
    let format: ContainerFormat
    /// Whether the output can tell decoders to drop AAC priming: ISO files with an edit list, which
    /// libav 5.1 writes for whole-file (not fragmented) MP4 only.
    let signalsPriming: Bool

    /// Keys of container tags that describe the source file itself and must not be copied.
    private static let sourceOnlyTags: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder"]

    init(input: InputFile, options: RemuxJob.Options) throws {
        format = options.format
        signalsPriming = options.format.signalsPriming && !options.fragmented
        var chosen: [UnsafeMutablePointer<AVStream>] = []
        var pictures: [UnsafeMutablePointer<AVStream>] = []
        var pictureTracks: Set<Int> = []
        // Tracks of an unknown codec that only Matroska could have taken.
        var matroskaOnly: [String] = []
        var skipped: [String] = []
        let hasChapters = input.context.pointee.nb_chapters > 0
        if hasChapters, !options.format.storesChapters {
            skipped.append(
                "\(options.format) cannot store chapters: the input's \(input.context.pointee.nb_chapters) were dropped"
            )
        }
        for stream in input.streams {
            let parameters = stream.pointee.codecpar.pointee
            let info = MediaInfo.Track(describing: stream)
            let label =
                "track \(info.index) (\(parameters.codec_id == AV_CODEC_ID_NONE ? info.codecTag ?? "unknown" : info.codec))"
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                let keepsEvery = Self.picturesKeptWhole(by: parameters.codec_id)
                let timed = stream.pointee.disposition & AV_DISPOSITION_TIMED_THUMBNAILS != 0
                if timed, Self.wanted(AVMEDIA_TYPE_VIDEO, options), keepsEvery.contains(options.format) {
                    chosen.append(stream)
                    pictureTracks.insert(Int(stream.pointee.index))
                } else if options.format.storesCoverArt, stream.pointee.attached_pic.size > 0 {
                    pictures.append(stream)
                    if timed, stream.pointee.nb_frames > 1 {
                        skipped.append(
                            "\(label) holds \(stream.pointee.nb_frames) chapter pictures; \(options.format) keeps only "
                                + "the first, as cover art" + Self.hint(keepsEvery, verb: "keep every one"))
                    }
                } else {
                    skipped.append(
                        "\(label) is \(timed ? "a track of chapter pictures" : "cover art"), which \(options.format) "
                            + "cannot store; it was not copied"
                            + Self.hint(timed ? keepsEvery : ContainerFormat.allCases.filter(\.storesCoverArt)))
                }
            } else if hasChapters, parameters.codec_type == AVMEDIA_TYPE_DATA,
                stream.pointee.discard == AVDISCARD_ALL
            {
                // The QuickTime chapter track libav turned into the input's chapters: they are copied (or
                // reported) as chapters, and the muxer writes its own chapter track.
                continue
            } else if parameters.codec_type != AVMEDIA_TYPE_AUDIO && parameters.codec_type != AVMEDIA_TYPE_VIDEO {
                skipped.append(Self.note(skipping: info, label: label, of: input, format: options.format))
            } else if parameters.codec_id == AV_CODEC_ID_NONE {
                if Self.keepsByFourCC(stream, options) {
                    chosen.append(stream)
                    skipped.append(
                        "\(label): libav 5.1 knows no codec for it; its packets are copied as they are, by its "
                            + "FourCC, in Matroska's VFW compatibility mode (a reader needs a decoder for it)")
                } else if parameters.codec_type == AVMEDIA_TYPE_VIDEO, parameters.codec_tag != 0 {
                    skipped.append("\(label) has an unknown codec and was not copied; formats that can: mkv")
                    matroskaOnly.append(label)
                } else {
                    skipped.append("\(label) has an unknown codec and was not copied")
                }
            } else if !Self.wanted(parameters.codec_type, options) {
                if options.format == .m4a && options.tracks == .all {
                    let holders = ContainerFormat.allCases.filter { $0 != .m4a && $0.carries(parameters.codec_id) }
                    skipped.append("\(label) is video, which m4a cannot hold; it was not copied" + Self.hint(holders))
                }
            } else {
                chosen.append(stream)
            }
        }
        guard !chosen.isEmpty else {
            if !matroskaOnly.isEmpty, options.tracks != .audio {
                throw MediaError(
                    .unsupportedCodec,
                    "\(matroskaOnly.joined(separator: ", ")) has a codec libav 5.1 does not know, which \(options.format) "
                        + "cannot hold; formats that can: mkv (by its FourCC)")
            }
            let what =
                options.format == .m4a ? "audio" : options.tracks == .all ? "audio or video" : options.tracks.rawValue
            throw MediaError(.missingStream, "the input has no \(what) track to remux")
        }
        coverArt = CoverArt(pictures)
        muxer = try Self.chooseMuxer(for: chosen, format: options.format, warnings: &skipped)
        warnings = skipped
        for (outputIndex, stream) in chosen.enumerated() {
            let parameters = stream.pointee.codecpar!
            routes[Int(stream.pointee.index)] = Route(
                inputIndex: Int(stream.pointee.index), outputIndex: outputIndex, kind: parameters.pointee.codec_type,
                codec: parameters.pointee.codec_id == AV_CODEC_ID_NONE
                    ? MediaInfo.Track(describing: stream).codecTag ?? "none"
                    : String(cString: avcodec_get_name(parameters.pointee.codec_id)),
                inputTimeBase: stream.pointee.time_base,
                filter: try Self.conversion(for: stream, format: options.format),
                splitsAMRFrames: parameters.pointee.codec_id == AV_CODEC_ID_AMR_NB,
                inputEnd: Self.end(of: stream), isPictureTrack: pictureTracks.contains(Int(stream.pointee.index)))
            noteLosses(stream)
            let reorders = parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO && parameters.pointee.video_delay > 0
            if let lost = ContainerLimits.unorderedInput(
                container: input.container, track: Int(stream.pointee.index), reorders: reorders)
            {
                warnings.append(lost)
            }
        }
    }

    /// What becomes of a track that is neither audio nor video. A QuickTime timecode (`tmcd`) track is not
    /// copied as such, but libav hands its start to the video track as a `timecode` tag, which the ISO
    /// muxers write as a new timecode track and Matroska as a tag; the other targets lose it.
    private static func note(
        skipping track: MediaInfo.Track, label: String, of input: InputFile, format: ContainerFormat
    ) -> String {
        let timecode = input.streams.lazy.compactMap { av_dict_get($0.pointee.metadata, "timecode", nil, 0) }.first
        guard track.codecTag == "tmcd", let timecode else {
            return "\(label) is a \(track.kind) track and was not copied"
        }
        let start = String(cString: timecode.pointee.value)
        switch format {
        case _ where format.isISOBaseMedia:
            return "\(label) is a timecode track: its start \(start) is kept as a new one"
        case .mkv: return "\(label) is a timecode track: its start \(start) is kept as the video track's TIMECODE tag"
        default: return "\(label) is a timecode track and was not copied: \(format) cannot hold its start \(start)"
        }
    }

    private static func end(of stream: UnsafeMutablePointer<AVStream>) -> Int64? {
        let duration = stream.pointee.duration
        guard duration != mediad_nopts_value(), duration > 0 else { return nil }
        let start = stream.pointee.start_time == mediad_nopts_value() ? 0 : stream.pointee.start_time
        // A hostile file can state a duration near Int64.max; past it, the end is unknown.
        let (end, overflow) = start.addingReportingOverflow(duration)
        return overflow ? nil : end
    }

    /// Whether a video track of a codec libav does not know (VVC's `vvc1` in libav 5.1) is copied by its
    /// FourCC, as the ffmpeg CLI copies it: into Matroska only, whose VFW mode stores any FourCC.
    private static func keepsByFourCC(_ stream: UnsafeMutablePointer<AVStream>, _ options: RemuxJob.Options) -> Bool {
        let parameters = stream.pointee.codecpar.pointee
        return options.format == .mkv && parameters.codec_type == AVMEDIA_TYPE_VIDEO && parameters.codec_tag != 0
            && wanted(AVMEDIA_TYPE_VIDEO, options)
    }

    private static func wanted(_ type: AVMediaType, _ options: RemuxJob.Options) -> Bool {
        if options.format == .m4a { return type == AVMEDIA_TYPE_AUDIO }
        switch options.tracks {
        case .all: return true
        case .audio: return type == AVMEDIA_TYPE_AUDIO
        case .video: return type == AVMEDIA_TYPE_VIDEO
        }
    }

    /// The format's muxer, or the `3gp` flavour of MP4 when a 3GPP codec (AMR, H.263) needs it.
    ///
    /// Matroska takes codecs it has no native mapping for through its VFW/ACM compatibility mode, which
    /// libav only admits below normal compliance; that is allowed, with a warning.
    private static func chooseMuxer(
        for streams: [UnsafeMutablePointer<AVStream>], format: ContainerFormat, warnings: inout [String]
    ) throws -> String {
        // A codec libav does not know reaches here only for Matroska, by its FourCC (`keepsByFourCC`).
        let codecs = streams.map { $0.pointee.codecpar.pointee.codec_id }.filter { $0 != AV_CODEC_ID_NONE }
        let variants = streams.map { $0.pointee.codecpar.pointee }.filter {
            format.carries($0.codec_id) && !format.carries($0.codec_id, sampleRate: $0.sample_rate)
        }
        if let variant = variants.first {
            let name = String(cString: avcodec_get_name(variant.codec_id))
            let alternatives = ContainerFormat.allCases.filter { candidate in
                streams.allSatisfy {
                    candidate.carries(
                        $0.pointee.codecpar.pointee.codec_id, sampleRate: $0.pointee.codecpar.pointee.sample_rate)
                }
            }
            throw MediaError(
                .unsupportedCodec,
                "\(format) cannot hold \(name) at \(variant.sample_rate) Hz (only 48, 44.1 and 32 kHz)"
                    + hint(alternatives))
        }
        let unsupported = codecs.filter { !format.carries($0) }
        guard !unsupported.isEmpty else { return format.muxerName }
        let names = unsupported.map { String(cString: avcodec_get_name($0)) }.joined(separator: ", ")
        if format == .mp4, codecs.allSatisfy({ format.carries($0, muxer: "3gp") }) {
            warnings.append("\(names): 3GPP codecs, written as MP4 with the 3gp brand")
            return "3gp"
        }
        if format == .mkv, unsupported.allSatisfy({ format.carries($0, compliance: FF_COMPLIANCE_UNOFFICIAL) }) {
            warnings.append("\(names): no native Matroska mapping, stored in its VFW/ACM compatibility mode")
            return format.muxerName
        }
        let alternatives = ContainerFormat.allCases.filter { candidate in
            candidate != format && codecs.allSatisfy { candidate.carries($0) }
        }
        throw MediaError(.unsupportedCodec, "\(format) cannot hold \(names)" + hint(alternatives))
    }

    /// The end of an `unsupported_codec` message or a warning: the formats the user can retry with, if any.
    private static func hint(_ alternatives: [ContainerFormat], verb: String = "can") -> String {
        alternatives.isEmpty ? "" : "; formats that \(verb): \(alternatives.map(\.rawValue).joined(separator: ", "))"
    }

    /// The formats that keep a track of `codec` pictures as a video track, every picture in it.
    private static func picturesKeptWhole(by codec: AVCodecID) -> [ContainerFormat] {
        ContainerFormat.allCases.filter { $0 != .m4a && $0.carries(codec) }
    }

    /// ASF wants H.264/H.265 in Annex-B; MP4-style (length-prefixed) input is converted on the way.
    /// MPEG-TS and the ISO/Matroska/FLV muxers convert by themselves in libav 5.1.
    private static func conversion(for stream: UnsafeMutablePointer<AVStream>, format: ContainerFormat) throws
        -> BitstreamFilter?
    {
        let parameters = stream.pointee.codecpar!
        guard format == .asf, parameters.pointee.extradata_size > 0, parameters.pointee.extradata[0] == 1 else {
            return nil
        }
        switch parameters.pointee.codec_id {
        case AV_CODEC_ID_H264:
            return try BitstreamFilter(
                name: "h264_mp4toannexb", parameters: parameters, timeBase: stream.pointee.time_base)
        case AV_CODEC_ID_HEVC:
            return try BitstreamFilter(
                name: "hevc_mp4toannexb", parameters: parameters, timeBase: stream.pointee.time_base)
        default:
            return nil
        }
    }

    /// Records, as warnings, what the target cannot carry for this track.
    private func noteLosses(_ stream: UnsafeMutablePointer<AVStream>) {
        let info = MediaInfo.Track(describing: stream)
        if let rotation = info.rotation, rotation != 0, !format.storesRotation {
            warnings.append(
                "track \(info.index): rotation \(rotation)° cannot be stored in \(format) with libav 5.1 and was dropped"
            )
        }
        if let language = info.language, !format.storesLanguage {
            warnings.append("track \(info.index): language '\(language)' cannot be stored in \(format)")
        }
    }

    /// Creates the output file with one stream per route, tags and side data copied, then the cover art's
    /// streams, and the chapters that fall within `start`…`end` seconds of the input.
    func makeOutput(path: String, input: InputFile, start: Double, end: Double?) throws -> OutputFile {
        let output = try OutputFile(path: path, muxer: muxer)
        for route in routes.values.sorted(by: { $0.outputIndex < $1.outputIndex }) {
            let source = input.stream(route.inputIndex)
            let parameters = route.filter?.outputParameters ?? source.pointee.codecpar!
            let stream = try output.addStream(
                copying: parameters, timeBase: route.filter?.outputTimeBase ?? source.pointee.time_base)
            // A bitstream conversion (to Annex-B for ASF) changes what the tag describes: the muxer names it.
            if route.filter == nil,
                let tag = StreamCopy.keptTag(
                    source.pointee.codecpar.pointee.codec_tag, codec: parameters.pointee.codec_id,
                    format: output.context.pointee.oformat)
            {
                stream.pointee.codecpar.pointee.codec_tag = tag
            }
            try StreamCopy.carryProperties(from: source, to: stream)
            if route.isPictureTrack {
                // Every picture is a packet of the track: neither cover art nor thumbnails to the muxer.
                stream.pointee.disposition &= ~(AV_DISPOSITION_ATTACHED_PIC | AV_DISPOSITION_TIMED_THUMBNAILS)
            }
        }
        StreamCopy.markDefaults(in: output.context)
        for (key, value) in LibavTags.dictionary(input.context.pointee.metadata)
        where !Self.sourceOnlyTags.contains(key) {
            av_dict_set(&output.context.pointee.metadata, key, value, 0)
        }
        try coverArt.addStreams(to: output, format: format)
        if format.storesChapters { try ChapterCopy.copy(from: input, to: output, start: start, end: end) }
        return output
    }
}
