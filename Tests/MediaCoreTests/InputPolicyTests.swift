import CFFmpeg
import Foundation
import MediaCore
import TestSupport
import Testing

/// Decoder whitelists: a job's input reaches only the decoders the job needs, both while libav probes
/// stream parameters and when the job decodes.
@Suite struct InputPolicyTests {
    @Test func aJobDecodesOnlyWhatItsPolicyAllows() throws {
        let input = try InputFile(path: try Fixtures.h264AacMP4(), container: .mp4, policy: .aacDecoding)
        try input.findStreamInfo()
        let video = try #require(input.streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO })
        let audio = try #require(input.streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO })
        let refused = #expect(throws: MediaError.self) { try Decoder(stream: video, of: input) }
        #expect(refused?.code == .unsupportedCodec)
        #expect(refused?.message.contains("h264") == true, "\(refused?.message ?? "")")
        #expect(try Decoder(stream: audio, of: input).codecName == "aac")
    }

    /// Raw H.264 states its pixel format only in decoded pictures: with the h264 decoder refused, probing
    /// cannot learn it; with the decoder allowed, it can. So the whitelist reaches libav's own probing.
    @Test func probingRunsOnlyAllowedDecoders() throws {
        let annexB = try Fixtures.h264AnnexB()
        let allowed = try InputFile(path: annexB, container: .h264, policy: .elementaryStreams)
        try allowed.findStreamInfo()
        #expect(allowed.stream(0).pointee.codecpar.pointee.format == AV_PIX_FMT_YUV420P.rawValue)
        let refused = try InputFile(path: annexB, container: .h264, policy: .aacDecoding)
        try? refused.findStreamInfo()
        #expect(refused.stream(0).pointee.codecpar.pointee.format == AV_PIX_FMT_NONE.rawValue)
    }

    @Test func everyListedDecoderExists() {
        let policies: [InputPolicy] = [.streamCopy, .elementaryStreams, .aacDecoding, .pcmDecoding]
        for name in policies.flatMap(\.decoders) {
            #expect(avcodec_find_decoder_by_name(name) != nil, "libav has no decoder called \(name)")
        }
    }
}
