import CFFmpeg
import MediaCore
import Testing

/// `FilterGraph` wires libavfilter's own filters; these check the wiring (sources, sinks, flush, frame
/// sizes) against what the filters are documented to do.
@Suite struct FilterGraphTests {
    /// A grey yuv420p frame of `width`×`height` at `pts`.
    static func greyFrame(width: Int, height: Int, pts: Int64) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        #expect(av_frame_get_buffer(frame.pointer, 0) >= 0)
        let linesizes = frame.pointer.pointee.linesize
        let planes = [frame.pointer.pointee.data.0!, frame.pointer.pointee.data.1!, frame.pointer.pointee.data.2!]
        for (plane, (data, linesize)) in zip(planes, [linesizes.0, linesizes.1, linesizes.2]).enumerated() {
            let rows = plane == 0 ? height : height / 2
            data.update(repeating: 128, count: Int(linesize) * rows)
        }
        frame.pts = pts
        return frame
    }

    /// Ten frames at 25 fps end at 0.4 s: `fps=50` makes twenty of them when the end is given.
    @Test func scalesAndDoublesTheFrameRateOfVideo() throws {
        let timeBase = AVRational(num: 1, den: 25)
        let graph = try FilterGraph(
            "[camera]scale=64:48,fps=50,format=yuv420p[scaled]",
            sources: [
                .video(
                    name: "camera", width: 160, height: 120, pixelFormat: AV_PIX_FMT_YUV420P, timeBase: timeBase,
                    frameRate: AVRational(num: 25, den: 1))
            ],
            sinks: [.video("scaled")])
        let output = Frame()
        var times: [Int64] = []
        for index in 0..<10 {
            try graph.push(try Self.greyFrame(width: 160, height: 120, pts: Int64(index)), to: "camera")
            while try graph.pull(from: "scaled", into: output) == .frame {
                #expect(output.width == 64 && output.height == 48)
                times.append(output.pts ?? -1)
            }
        }
        try graph.finish("camera", at: 10)
        var end = FilterGraph.Pulled.frame
        while end == .frame {
            end = try graph.pull(from: "scaled", into: output)
            if end == .frame { times.append(output.pts ?? -1) }
        }
        #expect(end == .end)
        #expect(times == Array(0..<20))
        #expect(try graph.frameRate(of: "scaled").map { av_q2d($0) } == 50)
        let shape = try graph.videoShape(of: "scaled")
        #expect(shape.width == 64 && shape.height == 48 && shape.pixelFormat == AV_PIX_FMT_YUV420P)
    }

    @Test func resamplesAudioIntoFramesOfTheAskedSize() throws {
        let input = AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: 48000, channels: 2)
        let graph = try FilterGraph(
            "[pcm]aresample=16000,aformat=sample_fmts=fltp:channel_layouts=mono[mono]",
            sources: [.audio(name: "pcm", format: input, timeBase: AVRational(num: 1, den: 48000))],
            sinks: [.audio("mono")])
        try graph.setFrameSize(160, of: "mono")
        let output = Frame()
        var sizes: [Int] = []
        for index in 0..<10 {
            let frame = Frame()
            try input.apply(to: frame)
            frame.pointer.pointee.nb_samples = 480
            #expect(av_frame_get_buffer(frame.pointer, 0) >= 0)
            av_samples_set_silence(frame.pointer.pointee.extended_data, 0, 480, 2, AV_SAMPLE_FMT_S16)
            frame.pts = Int64(index * 480)
            try graph.push(frame, to: "pcm")
            while try graph.pull(from: "mono", into: output) == .frame { sizes.append(output.sampleCount) }
        }
        try graph.finish("pcm")
        while try graph.pull(from: "mono", into: output) == .frame { sizes.append(output.sampleCount) }
        #expect(sizes.dropLast().allSatisfy { $0 == 160 })
        #expect(sizes.reduce(0, +) == 1600)
        #expect(
            try graph.audioFormat(of: "mono")
                == AudioFormat(
                    sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: 16000, channels: 1,
                    channelMask: 1 << AV_CHAN_FRONT_CENTER.rawValue))
    }

    @Test func refusesADescriptionThatLeavesASinkUnconnected() {
        #expect(throws: MediaError.self) {
            try FilterGraph(
                "[camera]null[first]",
                sources: [
                    .video(
                        name: "camera", width: 16, height: 16, pixelFormat: AV_PIX_FMT_YUV420P,
                        timeBase: AVRational(num: 1, den: 25))
                ],
                sinks: [.video("first"), .video("second")])
        }
    }
}
