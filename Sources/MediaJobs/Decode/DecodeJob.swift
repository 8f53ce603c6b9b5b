import CFFmpeg
import Foundation
import MediaCore

/// Decodes one track of a file: AAC to WAV or raw PCM, or H.264/H.265 to raw frames (Y4M, planar YUV or
/// NV12) — the server-side counterpart of a phone's VTDecompressionSession.
///
/// Which track: a video `format` decodes the first video track, an audio one the first audio track;
/// without `format`, a file with an audio track decodes it to WAV (as decode always has) and a file with
/// only video decodes it to Y4M.
public struct DecodeJob: Sendable {
    /// ADTS and raw H.264/H.265, and the containers that carry them.
    public static let acceptedInputs: [InputContainer] = [.adts, .mp4, .matroska, .mpegts, .h264, .hevc]

    var input: String
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> DecodeResult {
        try options.validate()
        let file = try Self.openInput(input, damaged: options.damaged)
        let audio = file.streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        let video = file.streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
        let format = options.format ?? (audio == nil && video != nil ? .y4m : .wav)
        // Without `format` the job chose it, and the output's extension says what it chose.
        let path = options.format == nil ? (output as NSString).deletingPathExtension + "." + format.rawValue : output
        let track = format.isVideo ? video : audio
        guard let track else {
            throw MediaError(
                .missingStream,
                "the \(file.container.displayName) input has no \(format.isVideo ? "video" : "audio") track")
        }
        for other in file.streams where other != track { other.pointee.discard = AVDISCARD_ALL }
        var result: DecodeResult
        do {
            if format.isVideo {
                result = try VideoFrameDecode(file: file, stream: track, output: path, format: format).run(context)
            } else {
                result = try AudioSampleDecode(
                    file: file, stream: track, output: path, format: format, sampleFormat: options.sampleFormat
                ).run(context)
            }
        } catch let error as MediaError where error.code == .invalidInput {
            throw file.nothingRead(of: [Int(track.pointee.index)]) ?? error
        }
        result.warnings =
            file.damageWarnings(
                streams: [Int(track.pointee.index)], readToEnd: true, outputDuration: result.duration)
            + result.warnings
        return result
    }
}
