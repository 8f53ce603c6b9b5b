import CFFmpeg
import MediaCore

/// The input tracks a transcode keeps: the first video track that is not cover art and the first audio
/// track, each only when the options want one.
struct SourceTracks {
    var video: UnsafeMutablePointer<AVStream>?
    var audio: UnsafeMutablePointer<AVStream>?
    var warnings: [String] = []

    /// Throws `missing_stream` when the options name a codec for a kind of track the input lacks: a
    /// transcode to video from audio alone is an error, not an empty video track.
    init(input: InputFile, options: TranscodeJob.Options) throws {
        let streams = input.streams
        let firstVideo = streams.first {
            $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                && $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
        let firstAudio = streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        if options.videoCodec != .none {
            guard let firstVideo else {
                throw MediaError(
                    .missingStream,
                    "the input has no video track but video_codec is \(options.videoCodec); "
                        + "pass video_codec=none (or an audio format such as m4a) to keep the audio only")
            }
            video = firstVideo
        }
        if options.resolvedAudioCodec != .none {
            if let firstAudio {
                audio = firstAudio
            } else if let named = options.audioCodec {
                throw MediaError(
                    .missingStream, "the input has no audio track but audio_codec is \(named); pass audio_codec=none")
            } else if video != nil {
                warnings.append("the input has no audio track: the output has video only")
            } else {
                throw MediaError(.missingStream, "the input has no audio track")
            }
        }
        let extraVideo = streams.filter {
            $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && $0 != firstVideo
                && $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }.count
        let extraAudio = streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }.count - 1
        if video != nil, extraVideo > 0 { warnings.append("only the first of \(extraVideo + 1) video tracks is kept") }
        if audio != nil, extraAudio > 0 { warnings.append("only the first of \(extraAudio + 1) audio tracks is kept") }
    }
}
