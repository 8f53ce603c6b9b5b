import CFFmpeg
import MediaCore

/// The tracks a package keeps and where each one's files go: the first video track (its folder named by
/// its height, `720p`) and every audio track (`audio`, or `audio_1`, `audio_2`, … when there are several),
/// each with the RFC 6381 codec string its manifests state.
struct PackagePlan {
    /// One kept track.
    struct Track {
        let inputIndex: Int
        let isVideo: Bool
        let codec: String
        let codecString: String
        /// The folder of its playlist, initialization segment and media segments.
        let folder: String
        let language: String?
        let channels: Int
        let sampleRate: Int
        let width: Int
        let height: Int
        let frameRate: AVRational
    }

    let tracks: [Track]
    let warnings: [String]

    /// The codecs an MPEG-TS segment carries in a way HLS players decode.
    private static let transportStreamCodecs: Set<UInt32> = [
        AV_CODEC_ID_H264.rawValue, AV_CODEC_ID_HEVC.rawValue, AV_CODEC_ID_AAC.rawValue, AV_CODEC_ID_MP3.rawValue,
        AV_CODEC_ID_AC3.rawValue, AV_CODEC_ID_EAC3.rawValue,
    ]

    init(input: InputFile, options: PackageJob.Options) throws {
        var video: UnsafeMutablePointer<AVStream>?
        var audio: [UnsafeMutablePointer<AVStream>] = []
        var warnings: [String] = []
        for stream in input.streams {
            let parameters = stream.pointee.codecpar.pointee
            let label = "track \(stream.pointee.index) (\(String(cString: avcodec_get_name(parameters.codec_id))))"
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                warnings.append("\(label) is cover art, which a streaming package does not carry")
            } else if parameters.codec_type == AVMEDIA_TYPE_VIDEO {
                if video == nil {
                    video = stream
                } else {
                    warnings.append("\(label) is a further video track; the package has one video rendition")
                }
            } else if parameters.codec_type == AVMEDIA_TYPE_AUDIO {
                audio.append(stream)
            } else {
                warnings.append("\(label) is a \(MediaInfo.Track(describing: stream).kind) track and was not copied")
            }
        }
        let chosen = (video.map { [$0] } ?? []) + audio
        guard !chosen.isEmpty else {
            throw MediaError(.missingStream, "the input has no audio or video track to package")
        }
        tracks = try chosen.enumerated().map { position, stream in
            try Self.track(
                stream, audioNumber: video == nil ? position + 1 : position, audioCount: audio.count, options)
        }
        self.warnings = warnings
    }

    private static func track(
        _ stream: UnsafeMutablePointer<AVStream>, audioNumber: Int, audioCount: Int, _ options: PackageJob.Options
    ) throws -> Track {
        let parameters = stream.pointee.codecpar!
        let codec = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let isVideo = parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        if options.segmentFormat == .ts, !transportStreamCodecs.contains(parameters.pointee.codec_id.rawValue) {
            throw MediaError(
                .invalidOption,
                "segment_format=ts cannot carry \(codec) (track \(stream.pointee.index)); use segment_format=fmp4")
        }
        guard let codecString = CodecString.of(parameters) else {
            throw MediaError(
                .unsupportedCodec, "track \(stream.pointee.index) is \(codec), which HLS and DASH packages do not carry"
            )
        }
        let info = MediaInfo.Track(describing: stream)
        let height = Int(parameters.pointee.height)
        let folder =
            isVideo ? (height > 0 ? "\(height)p" : "video") : audioCount == 1 ? "audio" : "audio_\(audioNumber)"
        return Track(
            inputIndex: Int(stream.pointee.index), isVideo: isVideo, codec: codec, codecString: codecString,
            folder: folder, language: info.language, channels: Int(parameters.pointee.ch_layout.nb_channels),
            sampleRate: Int(parameters.pointee.sample_rate), width: Int(parameters.pointee.width), height: height,
            frameRate: stream.pointee.avg_frame_rate)
    }
}
