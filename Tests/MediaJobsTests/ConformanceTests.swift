import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Every output format of remux, mux and encode, read by parsers that share no code with libav's
/// demuxers (see `Parsers`): each must read the file with no error or warning, and MediaInfo must call
/// every faststart MP4, MOV and M4A streamable. The cases run in parallel on seconds-long fixtures.
@Suite struct ConformanceTests {
    /// One output to judge: how it is made, how many streams it has, and which parsers read it.
    struct Case: Sendable, CustomTestStringConvertible {
        enum Parser: Sendable { case gstreamer, mkvmerge, tsreport, mediainfo }

        let name: String
        let streams: Int
        let parsers: [Parser]
        let make: @Sendable (Scratch) throws -> String
        var testDescription: String { name }

        /// Whether the output is an ISO file with its `moov` first (every one but the fragmented).
        var faststart: Bool {
            ["mp4", "mov", "m4a"].contains(name.split(separator: " ").last ?? "") && !name.contains("fragmented")
        }
    }

    static func remux(_ format: ContainerFormat, _ values: [String: String] = [:], input: String? = nil)
        -> @Sendable (Scratch) throws -> String
    {
        { scratch in
            let output = scratch.file("out.\(format.fileExtension)")
            var options = values
            options["format"] = format.rawValue
            _ = try RemuxJob(
                input: try input ?? Fixtures.h264AacMP4(), output: output, options: try .init(parsing: options)
            ).run(JobContext())
            return output
        }
    }

    static func mux(_ format: ContainerFormat, hevc: Bool = false, audioOnly: Bool = false)
        -> @Sendable (Scratch) throws -> String
    {
        { scratch in
            let video = try audioOnly ? nil : hevc ? Fixtures.hevcAnnexB() : Fixtures.h264AnnexB()
            let fps = FrameRate(numerator: hevc ? 25 : 30, denominator: 1)
            return try MuxChecks.mux(audio: try Fixtures.adts(), video: video, format: format, fps: fps, in: scratch).1
        }
    }

    static func encode(_ format: EncodeJob.Options.Format) -> @Sendable (Scratch) throws -> String {
        { scratch in
            let output = scratch.file("out.\(format.rawValue == "adts" ? "aac" : format.rawValue)")
            _ = try EncodeJob(input: try Fixtures.wav(), output: output, options: .init(format: format))
                .run(JobContext())
            return output
        }
    }

    static let cases: [Case] = [
        Case(name: "remux mp4", streams: 2, parsers: [.gstreamer, .mediainfo], make: remux(.mp4)),
        Case(name: "remux mov", streams: 2, parsers: [.gstreamer, .mediainfo], make: remux(.mov)),
        Case(name: "remux m4a", streams: 1, parsers: [.gstreamer, .mediainfo], make: remux(.m4a)),
        Case(
            name: "remux fragmented mp4", streams: 2, parsers: [.gstreamer],
            make: remux(.mp4, ["fragmented": "true"])),
        Case(name: "remux mkv", streams: 2, parsers: [.gstreamer, .mkvmerge], make: remux(.mkv)),
        Case(name: "remux ts", streams: 2, parsers: [.gstreamer, .mkvmerge, .tsreport], make: remux(.ts)),
        Case(name: "remux flv", streams: 2, parsers: [.gstreamer, .mkvmerge], make: remux(.flv)),
        Case(name: "remux asf", streams: 2, parsers: [.gstreamer, .mediainfo], make: remux(.asf)),
        Case(name: "mux mp4", streams: 2, parsers: [.gstreamer, .mediainfo], make: mux(.mp4)),
        Case(name: "mux mov", streams: 2, parsers: [.gstreamer, .mediainfo], make: mux(.mov)),
        Case(name: "mux mkv", streams: 2, parsers: [.gstreamer, .mkvmerge], make: mux(.mkv)),
        Case(name: "mux ts", streams: 2, parsers: [.gstreamer, .mkvmerge, .tsreport], make: mux(.ts)),
        Case(name: "mux flv", streams: 2, parsers: [.gstreamer, .mkvmerge], make: mux(.flv)),
        Case(name: "mux asf", streams: 2, parsers: [.gstreamer, .mediainfo], make: mux(.asf)),
        Case(name: "mux m4a", streams: 1, parsers: [.gstreamer, .mediainfo], make: mux(.m4a, audioOnly: true)),
        Case(name: "mux hevc mp4", streams: 2, parsers: [.gstreamer, .mediainfo], make: mux(.mp4, hevc: true)),
        Case(name: "mux hevc mkv", streams: 2, parsers: [.gstreamer, .mkvmerge], make: mux(.mkv, hevc: true)),
        Case(name: "mux hevc ts", streams: 2, parsers: [.gstreamer, .tsreport], make: mux(.ts, hevc: true)),
        Case(name: "encode m4a", streams: 1, parsers: [.gstreamer, .mediainfo], make: encode(.m4a)),
        Case(name: "encode mp4", streams: 1, parsers: [.gstreamer, .mediainfo], make: encode(.mp4)),
        Case(name: "encode adts", streams: 1, parsers: [.gstreamer, .mediainfo], make: encode(.adts)),
        Case(name: "encode wav", streams: 1, parsers: [.gstreamer, .mediainfo], make: encode(.wav)),
    ]

    @Test(arguments: cases)
    func readsCleanlyInIndependentParsers(_ example: Case) throws {
        let scratch = try Scratch("conformance")
        let output = try example.make(scratch)
        for parser in example.parsers {
            switch parser {
            case .gstreamer:
                let problems = try Parsers.gstreamerProblems(output, streams: example.streams)
                #expect(problems.isEmpty, "\(problems)")
            case .mkvmerge:
                let problems = try Parsers.mkvmerge(output, tracks: example.streams).problems
                #expect(problems.isEmpty, "\(problems)")
            case .tsreport:
                let problems = try Parsers.tsreportProblems(output)
                #expect(problems.isEmpty, "\(problems)")
            case .mediainfo:
                let tracks = try Parsers.mediainfo(output)
                #expect(tracks.count == example.streams + 1, "\(tracks)")
                let general = tracks.first ?? [:]
                if example.faststart { #expect(general["IsStreamable"] as? String == "Yes", "\(general)") }
            }
        }
    }
}
