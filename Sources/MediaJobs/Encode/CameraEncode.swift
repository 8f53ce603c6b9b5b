import CFFmpeg
import Foundation
import MediaCore

/// Encodes raw camera frames to H.264 or H.265 — the server side of a phone's VTCompressionSession — as
/// an Annex-B stream or in a container, with PCM beside them encoded to AAC in the same file: capture →
/// encode → mux in one job.
///
/// The two tracks are encoded in turns, whichever is behind in input time goes next, so the muxer
/// interleaves them without holding either back. The AAC track is the PCM encode's own (`AudioWriter`,
/// priming recorded in the ISO formats' edit list), so both start at the same instant.
struct CameraEncode {
    var video: String
    var audio: String?
    var output: String
    var options: EncodeJob.Options

    func run(_ context: JobContext) throws -> EncodeResult {
        try options.validate()
        guard let geometry = options.frameGeometry, let encoding = try options.videoEncoding() else {
            throw MediaError(
                .invalidOption, "camera frames need pixel_format, width, height and fps to say what they are")
        }
        let frames = try RawVideoSource(path: video, geometry: geometry)
        let pcm = try audio.map { try PCMSource(path: $0, options: options) }
        var warnings = pcm.map(EncodeJob.assumptions) ?? []
        let destination = try OutputFile(path: output, muxer: options.format.muxerName)
        let videoTrack = try CameraVideoTrack(
            source: frames, options: encoding, repeatHeaders: options.format.isAnnexB, output: destination)
        let audioTrack = try pcm.map { source in
            let target = try EncodeJob.aacFormat(for: source, warnings: &warnings)
            let globalHeader = destination.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
            let encoder = try Encoder.aac(target, bitRate: options.bitrate, globalHeader: globalHeader)
            return (source: source, writer: try AudioWriter(sharing: destination, encoder: encoder))
        }
        let audioWriter = audioTrack?.writer
        try destination.writeHeader(options: options.format.muxerOptions(sampleRate: nil))
        try encode(videoTrack, audio: audioTrack, context)
        try destination.finish()
        context.reportProgress(1)
        var tracks = [videoTrack.encoding.videoReport()]
        if let pcm, let audioWriter {
            tracks.append(audioReport(pcm, audioWriter))
            if abs(pcm.seconds - frames.duration) > 1 / geometry.fps.framesPerSecond {
                warnings.append(
                    String(
                        format: "the PCM lasts %.3f s and the frames %.3f s: the shorter track ends first",
                        pcm.seconds, frames.duration))
            }
        }
        for (index, profile) in ProfileName.ofTracks(inFileAt: output, count: tracks.count).enumerated() {
            tracks[index].profile = profile
        }
        return EncodeResult(
            outputs: [output], warnings: warnings, sampleRate: audioWriter?.format.sampleRate,
            channels: pcm?.channels, inputSampleFormat: pcm?.sampleFormat, frames: audioWriter?.packetsWritten,
            samples: pcm?.samplesDelivered, duration: frames.duration, bitrate: pcm == nil ? nil : options.bitrate,
            muxer: options.format.muxerName, tracks: tracks)
    }

    /// Encodes both inputs to their ends, the one behind in input time first; reports progress by the
    /// time both have reached.
    private func encode(
        _ video: CameraVideoTrack, audio: (source: PCMSource, writer: AudioWriter)?, _ context: JobContext
    ) throws {
        let total = max(video.source.duration, audio?.source.totalSeconds ?? 0)
        var videoOpen = true
        var audioOpen = audio != nil
        let samples = Frame()
        while videoOpen || audioOpen {
            try context.checkpoint()
            if let audio, audioOpen, !videoOpen || audio.source.seconds < video.source.seconds {
                if try audio.source.next(into: samples) {
                    try audio.writer.write(samples)
                } else {
                    guard audio.source.samplesDelivered > 0 else {
                        throw MediaError(.emptyInput, "the audio input holds no samples")
                    }
                    try audio.writer.flush()
                    audioOpen = false
                }
            } else {
                videoOpen = try video.step()
            }
            let reached = min(video.source.seconds, audio?.source.seconds ?? .infinity)
            if total > 0 { context.reportProgress(min(0.99, reached / total)) }
        }
    }

    /// The AAC track's entry, as transcode reports an encoded audio track.
    private func audioReport(_ source: PCMSource, _ writer: AudioWriter) -> TranscodeResult.Track {
        let seconds = source.seconds
        return TranscodeResult.Track(
            kind: "audio", codec: writer.encoder.codecName, profile: nil, copied: false, frames: writer.packetsWritten,
            duration: seconds, bitrate: seconds > 0 ? Int((Double(writer.bytesWritten * 8) / seconds).rounded()) : 0,
            sampleRate: writer.format.sampleRate, channels: writer.format.channels)
    }
}
