import CFFmpeg
import MediaCore

/// The tracks a package keeps and where each one's files go: the first video track, or every one for a
/// ladder's intermediate file (each folder named by its height, `720p`), and every audio track (`audio`,
/// or `audio_1`, `audio_2`, … when there are several), each with the RFC 6381 codec string its manifests
/// state.
struct PackagePlan {
    /// What a kept track's manifests say of it besides its codec: a video track's pictures or an audio
    /// track's sound.
    enum Media {
        case video(width: Int, height: Int, frameRate: AVRational)
        case audio(channels: Int, sampleRate: Int)
    }

    /// One kept track.
    struct Track {
        let inputIndex: Int
        /// The track of the job's input it came from, for results and messages: `inputIndex` itself, or for
        /// a ladder's intermediate file the source track that was encoded.
        let sourceIndex: Int
        /// The folder of its playlist, initialization segment and media segments.
        let folder: String
        let language: String?
        let media: Media
        let codec: String
        let codecString: String

        var isVideo: Bool { if case .video = media { true } else { false } }
    }

    let tracks: [Track]
    let warnings: [String]

    /// The codecs an MPEG-TS segment carries in a way HLS players decode.
    static let transportStreamCodecs: Set<UInt32> = [
        AV_CODEC_ID_H264.rawValue, AV_CODEC_ID_HEVC.rawValue, AV_CODEC_ID_AAC.rawValue, AV_CODEC_ID_MP3.rawValue,
        AV_CODEC_ID_AC3.rawValue, AV_CODEC_ID_EAC3.rawValue,
    ]

    /// `everyVideoTrack` keeps every video track as a rendition of its own: the ladder's renditions, whose
    /// `sourceIndices` give, for each track of `input`, the source track it was encoded from.
    init(
        input: InputFile, options: PackageJob.Options, everyVideoTrack: Bool = false, sourceIndices: [Int]? = nil
    ) throws {
        var videos: [UnsafeMutablePointer<AVStream>] = []
        var audio: [UnsafeMutablePointer<AVStream>] = []
        var warnings: [String] = []
        for stream in input.streams {
            let parameters = stream.pointee.codecpar.pointee
            let label = "track \(stream.pointee.index) (\(String(cString: avcodec_get_name(parameters.codec_id))))"
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                warnings.append("\(label) is cover art, which a streaming package does not carry")
            } else if parameters.codec_type == AVMEDIA_TYPE_VIDEO {
                if videos.isEmpty || everyVideoTrack {
                    videos.append(stream)
                } else {
                    warnings.append("\(label) is a further video track; the package has one video rendition")
                }
            } else if parameters.codec_type == AVMEDIA_TYPE_AUDIO {
                audio.append(stream)
            } else {
                warnings.append("\(label) is a \(MediaInfo.Track(describing: stream).kind) track and was not copied")
            }
        }
        let chosen = videos + audio
        guard !chosen.isEmpty else {
            throw MediaError(.missingStream, "the input has no audio or video track to package")
        }
        tracks = try chosen.enumerated().map { position, stream in
            let index = Int(stream.pointee.index)
            return try Self.track(
                stream, sourceIndex: sourceIndices?[index] ?? index, audioNumber: position - videos.count + 1,
                audioCount: audio.count, options)
        }
        self.warnings = warnings
    }

    private static func track(
        _ stream: UnsafeMutablePointer<AVStream>, sourceIndex: Int, audioNumber: Int, audioCount: Int,
        _ options: PackageJob.Options
    ) throws -> Track {
        let parameters = stream.pointee.codecpar!
        let codec = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let isVideo = parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        if options.segmentFormat == .ts, !transportStreamCodecs.contains(parameters.pointee.codec_id.rawValue) {
            throw MediaError(
                .invalidOption,
                "segment_format=ts cannot carry \(codec) (track \(sourceIndex)); use segment_format=fmp4")
        }
        guard let codecString = CodecString.of(parameters) else {
            throw MediaError(
                .unsupportedCodec, "track \(sourceIndex) is \(codec), which HLS and DASH packages do not carry"
            )
        }
        let info = MediaInfo.Track(describing: stream)
        let height = Int(parameters.pointee.height)
        let folder =
            isVideo ? (height > 0 ? "\(height)p" : "video") : audioCount == 1 ? "audio" : "audio_\(audioNumber)"
        let media =
            isVideo
            ? Media.video(
                width: Int(parameters.pointee.width), height: height, frameRate: stream.pointee.avg_frame_rate)
            : Media.audio(
                channels: Int(parameters.pointee.ch_layout.nb_channels),
                sampleRate: Int(parameters.pointee.sample_rate))
        return Track(
            inputIndex: Int(stream.pointee.index), sourceIndex: sourceIndex, folder: folder, language: info.language,
            media: media, codec: codec, codecString: codecString)
    }
}
