import CFFmpeg
import Foundation
import MediaCore
import TestSupport
import Testing

@Suite struct CodecTests {
    /// A packed or planar frame of `format` holding `values` (interleaved for packed formats).
    static func frame(_ format: AudioFormat, _ values: [Int16]) throws -> Frame {
        let frame = Frame()
        try format.apply(to: frame)
        frame.pointer.pointee.nb_samples = Int32(values.count / format.channels)
        #expect(av_frame_get_buffer(frame.pointer, 0) >= 0)
        values.withUnsafeBytes { bytes in
            frame.pointer.pointee.data.0!.update(
                from: bytes.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count)
        }
        return frame
    }

    static func floats(_ frame: Frame, plane: Int) -> [Float] {
        let data = frame.pointer.pointee.extended_data[plane]!
        return data.withMemoryRebound(to: Float.self, capacity: frame.sampleCount) {
            Array(UnsafeBufferPointer(start: $0, count: frame.sampleCount))
        }
    }

    @Test(arguments: SampleFormat.allCases)
    func sampleFormatsMapToLibav(_ format: SampleFormat) {
        #expect(String(cString: avcodec_get_name(format.codecID)) == "pcm_" + format.rawValue)
        #expect(av_find_input_format(format.rawFormatName) != nil)
        #expect(av_guess_format(format.rawFormatName, nil, nil) != nil)
        #expect(Int(av_get_bits_per_sample(format.codecID)) == format.bytesPerSample * 8)
        #expect(SampleFormat(codecID: format.codecID) == format)
        #expect(avcodec_find_decoder(format.codecID)?.pointee.sample_fmts?.pointee == format.codecSampleFormat)
    }

    @Test func resamplerConvertsS16ToPlanarFloatExactly() throws {
        let stereo = AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: 48000, channels: 2)
        let resampler = try Resampler(from: stereo, to: stereo.with(sampleFormat: AV_SAMPLE_FMT_FLTP))
        let input = try Self.frame(stereo, [16384, -32768, -8192, 32767, 0, 1])
        let output = Frame()
        try resampler.convert(input, into: output)
        #expect(output.sampleCount == 3)
        #expect(Self.floats(output, plane: 0) == [0.5, -0.25, 0])
        #expect(Self.floats(output, plane: 1) == [-1, Float(32767) / 32768, Float(1) / 32768])
        try resampler.flush(into: output)
        #expect(output.sampleCount == 0)
    }

    @Test func resamplerChangesRateAndFlushesItsDelay() throws {
        let mono = AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: 96000, channels: 1)
        let target = AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: 48000, channels: 1)
        let resampler = try Resampler(from: mono, to: target)
        let output = Frame()
        var total = 0
        for _ in 0..<10 {
            try resampler.convert(try Self.frame(mono, [Int16](repeating: 1000, count: 1000)), into: output)
            total += output.sampleCount
        }
        try resampler.flush(into: output)
        total += output.sampleCount
        #expect(total == 5000)
    }

    @Test func fifoRegroupsIntoEncoderFrames() throws {
        let format = AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: 44100, channels: 1)
        let fifo = try AudioFifo(format: format, capacity: 16)
        for chunk in 0..<5 {
            try fifo.write(try Self.frame(format, (0..<700).map { Int16(chunk * 700 + $0) }))
        }
        #expect(fifo.count == 3500)
        let frame = Frame()
        var next: Int16 = 0
        var sizes: [Int] = []
        while fifo.count > 0 {
            try fifo.read(1024, into: frame, pts: Int64(next))
            sizes.append(frame.sampleCount)
            let values = frame.pointer.pointee.data.0!.withMemoryRebound(to: Int16.self, capacity: frame.sampleCount) {
                Array(UnsafeBufferPointer(start: $0, count: frame.sampleCount))
            }
            #expect(values == (0..<frame.sampleCount).map { next + Int16($0) })
            #expect(frame.pointer.pointee.pts == Int64(next))
            next += Int16(frame.sampleCount)
        }
        #expect(sizes == [1024, 1024, 1024, 428])
    }

    /// Raw bytes → pcm decoder → pcm encoder gives back the same bytes, for packed 24-bit and big-endian too.
    @Test(arguments: [SampleFormat.s24le, .s16be, .u8, .f64le])
    func pcmDecoderAndEncoderRoundTrip(_ format: SampleFormat) throws {
        let scratch = try Scratch("pcm")
        let bytes = (0..<(format.bytesPerSample * 2 * 5000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let path = try scratch.write("input.raw", bytes)
        let reader = try RawPCMReader(path: path, sampleFormat: format, channels: 2)
        #expect(reader.totalSamples == 5000)
        let decoder = try Decoder(pcm: format, sampleRate: 8000, channels: 2)
        let encoder = try Encoder.pcm(format, like: decoder.outputFormat)
        #expect(encoder.frameSize == nil)
        let (packet, frame, encoded) = (Packet(), Frame(), Packet())
        var output: [UInt8] = []
        func drainEncoder() throws {
            while try encoder.receive(into: encoded) { output += encoded.data }
        }
        while try reader.read(1500, into: packet) {
            try decoder.send(packet)
            while try decoder.receive(into: frame) {
                #expect(AudioFormat(of: frame) == decoder.outputFormat.with(sampleFormat: format.codecSampleFormat))
                try encoder.send(frame)
                try drainEncoder()
            }
        }
        try encoder.send(nil)
        try drainEncoder()
        #expect(output == bytes)
    }

    @Test func rawReaderRefusesPartialFrames() throws {
        let scratch = try Scratch("partial")
        let path = try scratch.write("input.raw", [UInt8](repeating: 0, count: 3 * 2 * 10 + 4))
        let error = #expect(throws: MediaError.self) { try RawPCMReader(path: path, sampleFormat: .s24le, channels: 2) }
        #expect(error?.code == .partialFrame && error?.message.contains("64 bytes") == true)
    }

    @Test func aacEncoderTakesPlanarFloatInFramesOf1024() throws {
        let format = AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: 44100, channels: 2)
        let encoder = try Encoder.aac(format, bitRate: 96000, globalHeader: true)
        #expect(encoder.frameSize == 1024)
        #expect(encoder.context.pointee.initial_padding == 1024)
        #expect(encoder.context.pointee.extradata_size >= 2)
        let error = #expect(throws: MediaError.self) {
            try Encoder.aac(format.with(sampleFormat: AV_SAMPLE_FMT_S16), bitRate: 96000, globalHeader: false)
        }
        #expect(error?.code == .unsupportedCodec)
    }
}
