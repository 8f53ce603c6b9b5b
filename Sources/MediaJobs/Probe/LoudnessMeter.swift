import CFFmpeg
import Foundation
import MediaCore

/// Measures one audio track's EBU R128 loudness by decoding it through libavfilter's `ebur128` (with
/// `peak=true+sample`), as `ffmpeg -af ebur128=peak=true+sample` does.
///
/// The filter attaches its running measurements to the frames it passes on (`metadata=1`): the last
/// frame's integrated loudness and range are the track's, and the peaks are the largest of any frame.
/// Peaks arrive as linear amplitudes and are reported in dB.
struct LoudnessMeter {
    let path: String
    let container: InputContainer
    /// The track's index in the file.
    let index: Int

    func measure(_ context: JobContext) throws -> TrackLoudness {
        let file = try InputFile(
            path: path, container: container, policy: InputPolicy.streamCopy.handling(damaged: .salvage))
        try file.findStreamInfo()
        let stream = file.stream(index)
        for other in file.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        let decoding = try TrackDecoding(file: file, stream: stream)
        var graph: FilterGraph? = nil
        var reading = R128Reading()
        let measured = Frame()

        func collect(_ graph: FilterGraph) throws {
            while try graph.pull(from: "out", into: measured) == .frame { reading.take(measured) }
        }

        try decoding.run(context) { frame in
            let meter =
                try graph
                ?? FilterGraph(
                    "[in]ebur128=metadata=1:peak=true+sample[out]",
                    sources: [.audio(name: "in", format: AudioFormat(of: frame), timeBase: stream.pointee.time_base)],
                    sinks: [.audio("out")])
            graph = meter
            try meter.push(frame, to: "in")
            try collect(meter)
        }
        guard let graph else {
            throw MediaError(.invalidInput, "no audio of track \(index) could be decoded to measure its loudness")
        }
        try graph.finish("in")
        try collect(graph)
        guard let integrated = reading.integrated, let range = reading.range else {
            throw MediaError(.invalidInput, "track \(index) is too short to measure its loudness")
        }
        return TrackLoudness(
            integrated: integrated, range: range, truePeak: R128Reading.decibels(reading.truePeak),
            samplePeak: R128Reading.decibels(reading.samplePeak))
    }
}
