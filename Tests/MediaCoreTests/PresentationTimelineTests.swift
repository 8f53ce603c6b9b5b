import CFFmpeg
import Foundation
@testable import MediaCore
import TestSupport
import Testing

@Suite struct PresentationTimelineTests {
    private func picture(_ count: Int64, resets: Bool = false) -> PictureOrder {
        PictureOrder(count: count, startsPeriod: resets, isKeyframe: resets)
    }

    @Test func ordersEachPeriodByPictureOrderCount() {
        // I0 P8 B4 b2 b6 | IDR: I0 P4 B2
        let timeline = PresentationTimeline(pictures: [
            picture(0, resets: true), picture(8), picture(4), picture(2), picture(6),
            picture(0, resets: true), picture(4), picture(2),
        ])
        #expect(timeline.pts == [0, 4, 2, 1, 3, 5, 7, 6])
        #expect(timeline.delay == 2)
        #expect(timeline.dts == [-2, -1, 0, 1, 2, 3, 4, 5])
        #expect(zip(timeline.dts, timeline.pts).allSatisfy { $0 <= $1 })
    }

    @Test func needsNoDelayWithoutReordering() {
        let timeline = PresentationTimeline(pictures: [picture(0, resets: true), picture(2), picture(4)])
        #expect(timeline.pts == [0, 1, 2])
        #expect(timeline.dts == [0, 1, 2])
    }

    @Test func showsLeadingPicturesOfAPeriodBeforeItsFirstPicture() {
        // An H.265 IDR_W_RADL followed by RADL pictures with negative counts.
        let timeline = PresentationTimeline(pictures: [
            picture(0, resets: true), picture(4), picture(2), picture(0, resets: true), picture(-2), picture(-1),
        ])
        #expect(timeline.pts == [0, 2, 1, 5, 3, 4])
        #expect(timeline.delay == 1)
    }

    /// Streams whose frame order ffmpeg's own encoder recorded in an MP4: the ground truth.
    enum Stream: String, CaseIterable, CustomTestStringConvertible {
        case h264BPyramid, h264NoBFrames, h264OpenGOP, h264High444, h264Interlaced, hevcOpenGOP, hevcClosedGOP
        var testDescription: String { rawValue }

        func files() throws -> (mp4: String, annexB: String, codec: InputContainer) {
            let (mp4, codec): (String, InputContainer) =
                switch self {
                case .h264BPyramid: (try Fixtures.h264AacMP4(), .h264)
                case .h264NoBFrames: (try Fixtures.h264NoBFramesMP4(), .h264)
                case .h264OpenGOP: (try Fixtures.h264OpenGOPMP4(), .h264)
                case .h264High444: (try Fixtures.h264High444MP4(), .h264)
                case .h264Interlaced: (try Fixtures.h264InterlacedMP4(), .h264)
                case .hevcOpenGOP: (try Fixtures.hevcMP4(), .hevc)
                case .hevcClosedGOP: (try Fixtures.hevcClosedGOPMP4(), .hevc)
                }
            return (mp4, try Fixtures.annexB(of: mp4, codec: codec.rawValue), codec)
        }
    }

    @Test(arguments: Stream.allCases)
    func matchesTheEncodersPresentationOrder(_ stream: Stream) throws {
        let (mp4, annexB, codec) = try stream.files()
        let expected = try Self.framePTS(mp4)
        let source = try AnnexBVideoSource(path: annexB, codec: codec, frameRate: AVRational(num: 25, den: 1))
        #expect(source.timeline.pts == expected)
        #expect(source.timeline.count > 40)
        #expect(zip(source.timeline.dts, source.timeline.pts).allSatisfy { $0 <= $1 })
    }

    /// The MP4's video packet pts in decoding order, in frames from the first shown picture.
    static func framePTS(_ mp4: String) throws -> [Int64] {
        let pts = try Oracle.packets(mp4, stream: "v:0").map { ($0["pts"] as? NSNumber)?.int64Value ?? -1 }
        let sorted = pts.sorted()
        let step = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.filter { $0 > 0 }.min() ?? 1
        return pts.map { ($0 - sorted[0]) / step }
    }
}
