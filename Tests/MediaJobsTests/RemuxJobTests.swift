import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

@Suite struct RemuxJobTests {
    @Test(arguments: ContainerFormat.allCases.filter { $0 != .m4a })
    func copiesEveryFrameAndSample(to format: ContainerFormat) throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: format, in: scratch)
        #expect(result.outputs == [output])
        #expect(try Oracle.decodedHashes(output, streams: "0:v") == Oracle.decodedHashes(input, streams: "0:v"))
        #expect(try Oracle.packetCount(output, stream: "v:0") == 90)
        let offset = try #require(try Oracle.audioOffset(of: input, in: output))
        if format.signalsPriming {
            #expect(offset == 0)
            #expect(try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"))
            #expect(result.warnings.isEmpty)
        } else {
            #expect(result.warnings.contains { $0.contains("encoder delay") })
        }
        let duration = try #require(Double(try Oracle.format(output)["duration"] as? String ?? ""))
        #expect(abs(duration - 3) < 0.1)
        #expect(try Scratch.listingIsOnly(["out.\(format.fileExtension)"], in: scratch))
    }

    @Test func putsTheMovieBoxFirstByDefault() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        #expect(
            try Oracle.topLevelBoxes(input).firstIndex(of: "mdat")! < Oracle.topLevelBoxes(input).firstIndex(
                of: "moov")!)
        for format in [ContainerFormat.mp4, .mov] {
            let (output, _) = try remux(input, to: format, in: scratch)
            let boxes = try Oracle.topLevelBoxes(output)
            #expect(boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "mdat")!)
        }
        let (late, _) = try remux(input, to: .mp4, in: scratch, ["faststart": "false"])
        let boxes = try Oracle.topLevelBoxes(late)
        #expect(boxes.firstIndex(of: "mdat")! < boxes.firstIndex(of: "moov")!)
    }

    @Test func writesFragmentedMP4() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: .mp4, in: scratch, ["fragmented": "true"])
        let boxes = try Oracle.topLevelBoxes(output)
        #expect(boxes.filter { $0 == "moof" }.count >= 3)
        #expect(boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "moof")!)
        #expect(try Oracle.decodedHashes(output, streams: "0:v") == Oracle.decodedHashes(input, streams: "0:v"))
        // libav 5.1 writes no edit list in fragmented MP4, so the AAC priming is played, and said so.
        #expect(try Oracle.audioOffset(of: input, in: output) != nil)
        #expect(result.warnings.contains { $0.contains("(fragmented) cannot signal") })
        #expect(boxes.contains("sidx"), "a global sidx by default: \(boxes)")
    }

    /// `global_sidx=false`: the fragments alone, no `sidx` (nor the `mehd` made from it), a file libav writes
    /// front to back; the same pictures.
    @Test func writesFragmentedMP4WithoutGlobalIndex() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, _) = try remux(input, to: .mp4, in: scratch, ["fragmented": "true", "global_sidx": "false"])
        let boxes = try Oracle.topLevelBoxes(output)
        #expect(!boxes.contains("sidx"), "\(boxes)")
        #expect(boxes.filter { $0 == "moof" }.count >= 3)
        #expect(boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "moof")!)
        #expect(try Oracle.decodedHashes(output, streams: "0:v") == Oracle.decodedHashes(input, streams: "0:v"))
    }

    @Test func keepsAudioOnlyForM4A() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: .m4a, in: scratch)
        let streams = try Oracle.streams(output)
        #expect(streams.map { $0["codec_type"] as? String } == ["audio"])
        #expect(result.warnings.contains { $0.contains("m4a cannot hold") })
        #expect(try Oracle.decodedHashes(output) == Oracle.decodedHashes(input, streams: "0:a"))
        #expect(
            try Oracle.format(output)["tags"].flatMap { ($0 as? [String: Any])?["major_brand"] as? String } == "M4A ")
    }

    @Test(arguments: [("audio", ["audio"]), ("video", ["video"]), ("all", ["video", "audio"])])
    func selectsTracks(selection: String, kinds: [String]) throws {
        let scratch = try Scratch("remux")
        let (output, result) = try remux(try Fixtures.h264AacMP4(), to: .mkv, in: scratch, ["tracks": selection])
        #expect(try Oracle.streams(output).map { $0["codec_type"] as? String } == kinds)
        #expect(result.tracks.map(\.kind) == kinds)
    }

    @Test func keepsLanguageCreationTimeAndCodecTag() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.hevcAacMP4()
        for format in [ContainerFormat.mp4, .mkv] {
            let (output, _) = try remux(input, to: format, in: scratch)
            let info = try ProbeJob(input: output).run()
            #expect(info.tracks.first { $0.kind == "audio" }?.language == "deu")
            #expect(info.tags?["creation_time"]?.hasPrefix("2024-01-02T03:04:05") == true)
            if format == .mp4 { #expect(info.tracks.first { $0.kind == "video" }?.codecTag == "hvc1") }
            #expect(try Oracle.decodedHashes(output, streams: "0:v") == Oracle.decodedHashes(input, streams: "0:v"))
        }
    }

    @Test func keepsRotationWhereTheTargetCanAndWarnsWhereItCannot() throws {
        let scratch = try Scratch("remux")
        let input = RealMedia.directory + "/Jsonize_jsonize-ffmpeg-task/iphone_rotated.mov"
        let (mp4, kept) = try remux(input, to: .mp4, in: scratch)
        #expect(try ProbeJob(input: mp4).run().tracks.first { $0.kind == "video" }?.rotation == 90)
        #expect(!kept.warnings.contains { $0.contains("rotation") })
        let (_, dropped) = try remux(input, to: .mkv, in: scratch)
        #expect(dropped.warnings.contains { $0.contains("rotation 90°") })
    }

    @Test func readsMPEGTransportStreams() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacTS()
        let (output, _) = try remux(input, to: .mp4, in: scratch)
        #expect(try Oracle.decodedHashes(output) == Oracle.decodedHashes(input))
        #expect(
            try Oracle.streams(output).first { $0["codec_type"] as? String == "audio" }?["codec_tag_string"] as? String
                == "mp4a")
    }

    @Test func trimsOnKeyframesAndReportsTheCuts() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: .mp4, in: scratch, ["start": "1.5", "end": "1.6"])
        // Keyframes every 30 frames at 30 fps: the window [1.5, 1.6] widens to the GOP [1.0, 2.0).
        #expect(result.cutStart == 1.0)
        #expect(result.cutEnd == 2.0)
        let kept = try Oracle.videoFrameHashes(output)
        #expect(kept == Array(try Oracle.videoFrameHashes(input)[30..<60]))
        let audio = try Oracle.packets(output, stream: "a:0")
        let firstAudio = try #require(Double(audio.first?["pts"].map { "\($0)" } ?? ""))
        #expect(firstAudio >= 0)
        let duration = try #require(Double(try Oracle.format(output)["duration"] as? String ?? ""))
        #expect(abs(duration - 1.0) < 0.05)
    }

    @Test func trimsToTheEndWhenOnlyStartIsGiven() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: .mkv, in: scratch, ["start": "2.2"])
        #expect(result.cutStart == 2.0)
        #expect(try Oracle.videoFrameHashes(output) == Array(try Oracle.videoFrameHashes(input)[60...]))
    }

    @Test(arguments: [
        ["format": "avi"], ["tracks": "subtitles"], ["start": "-1"], ["start": "abc"], ["faststart": "maybe"],
        ["speed": "2"], ["format": "mkv", "faststart": "true"], ["format": "mkv", "fragmented": "true"],
        ["global_sidx": "false"],
        ["start": "5", "end": "2"], ["format": "m4a", "tracks": "video"], ["end": "1e300"], ["start": "1000000001"],
    ])
    func rejectsBadOptions(values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try RemuxJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
    }

    /// `end=1e300` used to trap converting the end to ticks (a worker_crashed job); the largest end
    /// accepted keeps the whole input.
    @Test func endAtTheLargestAcceptedValueKeepsEverything() throws {
        let scratch = try Scratch("remux")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: .mkv, in: scratch, ["end": "1000000000"])
        #expect(try Oracle.packetCount(output, stream: "v:0") == 90)
        #expect(result.cutEnd.map { abs($0 - 3) < 0.1 } == true, "\(String(describing: result.cutEnd))")
        let error = #expect(throws: MediaError.self) { try RemuxJob.Options(parsing: ["end": "1e300"]) }
        #expect(error?.message.contains("from 0 to 1000000000") == true)
    }

    @Test func explainsAllowedValuesInTheMessage() {
        let error = #expect(throws: MediaError.self) { try RemuxJob.Options(parsing: ["format": "avi"]) }
        #expect(error?.message.contains("mp4, mov, m4a, mkv, ts, flv, asf") == true)
    }

    @Test func refusesATrimPastTheEnd() throws {
        let scratch = try Scratch("remux")
        let error = #expect(throws: MediaError.self) {
            try remux(try Fixtures.h264AacMP4(), to: .mp4, in: scratch, ["start": "60"])
        }
        #expect(error?.code == .emptySelection)
        #expect(try scratch.listing().isEmpty)
    }

    @Test func refusesCodecsTheTargetCannotHold() throws {
        let scratch = try Scratch("remux")
        let error = #expect(throws: MediaError.self) { try remux(try Fixtures.hevcAacMP4(), to: .flv, in: scratch) }
        #expect(error?.code == .unsupportedCodec)
        #expect(error?.message.contains("hevc") == true)
        #expect(try scratch.listing().isEmpty)
    }

    @Test func refusesNonContainersAndLeavesNothingBehind() throws {
        let scratch = try Scratch("remux")
        let text = try scratch.write("notes.txt", Array("not a video\n".utf8))
        let error = #expect(throws: MediaError.self) { try remux(text, to: .mp4, in: scratch) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("text") == true)
        let pcm = #expect(throws: MediaError.self) { try remux(try Fixtures.wav(), to: .mp4, in: scratch) }
        #expect(pcm?.code == .unsupportedCodec)
        #expect(pcm?.message.contains("formats that can: mov, mkv") == true)
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4()))
        let cut = try scratch.write("cut.mp4", [UInt8](whole.prefix(whole.count - 1000)))
        let truncated = #expect(throws: MediaError.self) { try remux(cut, to: .mkv, in: scratch) }
        #expect(truncated?.code == .truncatedInput)
        #expect(try scratch.listing() == ["cut.mp4", "notes.txt"])
    }

    @Test func stopsWhenCancelledAndRemovesThePartialOutput() throws {
        let scratch = try Scratch("remux")
        let output = scratch.file("out.mkv")
        let job = RemuxJob(input: try Fixtures.h264AacMP4(), output: output, options: try .init(format: .mkv))
        let error = #expect(throws: MediaError.self) { try job.run(JobContext(isCancelled: { true })) }
        #expect(error?.code == .cancelled)
        #expect(try scratch.listing().isEmpty)
    }

    @Test func reportsProgressUpToOne() throws {
        let scratch = try Scratch("remux")
        let seen = ProgressLog()
        let job = RemuxJob(input: try Fixtures.h264AacMP4(), output: scratch.file("o.mp4"), options: try .init())
        _ = try job.run(JobContext(reportProgress: { seen.add($0) }))
        #expect(seen.values.last == 1)
        #expect(seen.values == seen.values.sorted())
        #expect(seen.values.count > 1)
    }
}
