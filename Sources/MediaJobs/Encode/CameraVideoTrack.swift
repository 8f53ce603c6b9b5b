import CFFmpeg
import MediaCore

/// The video track of a camera encode: raw frames converted by libavfilter to the pixel format the
/// encoder codes (NV12 to I420, 8 to 10 bits for main10) and encoded with transcode's `VideoEncoderSetup`.
final class CameraVideoTrack {
    let source: RawVideoSource
    let encoding: FilteredEncoder
    private let frame = Frame()

    /// Adds the video stream to `output`; `repeatHeaders` puts the parameter sets before every keyframe.
    init(source: RawVideoSource, options: TranscodeJob.Options, repeatHeaders: Bool, output: OutputFile) throws {
        self.source = source
        let geometry = source.geometry
        let rate = AVRational(num: Int32(geometry.fps.numerator), den: Int32(geometry.fps.denominator))
        let input = FilterGraph.Source.video(
            name: "in", width: geometry.width, height: geometry.height, pixelFormat: source.libavFormat,
            timeBase: source.timeBase, sampleAspectRatio: AVRational(num: 1, den: 1), frameRate: rate)
        let graph = try FilterGraph(
            "[in]format=\(options.effectivePixelFormat.rawValue)[out]", sources: [input], sinks: [.video("out")])
        let encoder = try VideoEncoderSetup(
            options: options, sink: "out", of: graph, frameRate: rate,
            globalHeader: output.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0,
            repeatHeaders: repeatHeaders
        ).open()
        let parameters = try encoder.parameters()
        let track = try OutputTrack(output: output, parameters: parameters.pointer, timeBase: encoder.timeBase)
        encoding = try FilteredEncoder(
            graph: graph, encoder: encoder, track: track,
            nominalPacketDuration: rate.frameDuration(in: encoder.timeBase))
    }

    /// Encodes the next frame; at the end of the input flushes the filters and the encoder and returns false.
    func step() throws -> Bool {
        guard try source.next(into: frame) else {
            try encoding.finish(inputEnd: source.framesRead)
            return false
        }
        try encoding.push(frame)
        return true
    }
}
