import Foundation
import TestSupport
import Testing

/// What a user meets around the commands: the version, readable help, output paths, and a command that
/// would destroy its own input.
@Suite struct CommandLineManners {
    func mediad(_ arguments: String...) throws -> Command.Output {
        try Command.run(CommandLineTests.binary, arguments, allowFailure: true)
    }

    @Test func printsItsVersionAndLibav() throws {
        let version = try mediad("--version")
        #expect(version.status == 0)
        #expect(version.text.hasPrefix("mediad "))
        #expect(version.text.contains("libavformat 59."))
    }

    /// Help is wrapped at 80 columns when not on a terminal: an example line must never be broken in
    /// the middle of a command (a wrapped line would start in column 0).
    @Test func helpExamplesAreNeverWrapped() throws {
        for command in ["probe", "remux", "demux", "mux", "encode", "decode", "transcode", "package", "submit", "serve"] {
            let help = try mediad(command, "--help").text
            guard let examples = help.range(of: "Example"), let usage = help.range(of: "USAGE:") else {
                Issue.record("\(command) --help has no examples")
                continue
            }
            let lines = help[examples.upperBound..<usage.lowerBound].split(separator: "\n").dropFirst()
            for line in lines where !line.isEmpty {
                #expect(line.hasPrefix("  "), "\(command): a wrapped example line: \(line)")
            }
        }
    }

    /// Each option's help names its default once (argument-parser adds `(default: …)` to options that
    /// have one, so the text must not say it again).
    @Test func optionHelpStatesEachDefaultOnce() throws {
        for command in ["submit", "remux", "encode", "transcode", "serve"] {
            let help = try mediad(command, "--help").text
            guard let options = help.range(of: "OPTIONS:") else { continue }
            var blocks: [String] = []
            for line in help[options.upperBound...].split(separator: "\n") {
                if line.hasPrefix("  -") {
                    blocks.append(String(line))
                } else if !blocks.isEmpty {
                    blocks[blocks.count - 1] += " " + line
                }
            }
            for block in blocks {
                #expect(block.components(separatedBy: "default").count <= 2, "\(command): \(block)")
            }
        }
    }

    @Test func refusesAnOutputThatIsTheInput() throws {
        let scratch = try Scratch("cli")
        let input = try Fixtures.h264AacMP4()
        let copy = scratch.file("talk.mp4")
        try FileManager.default.copyItem(atPath: input, toPath: copy)
        let before = try Data(contentsOf: URL(fileURLWithPath: copy))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link.mp4"), withDestinationPath: copy)
        for output in [copy, scratch.path + "/./talk.mp4", scratch.file("link.mp4")] {
            let result = try mediad("remux", copy, "-o", output)
            #expect(result.status == 1)
            #expect(result.stderr.contains("error: invalid_option: the output"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before)
    }

    @Test func demuxPrintsCleanPaths() throws {
        let scratch = try Scratch("cli")
        let result = try mediad("demux", try Fixtures.h264AacMP4(), "-o", scratch.file("parts") + "/")
        #expect(result.status == 0)
        let paths = result.text.split(separator: "\n")
        #expect(paths.count == 3)
        #expect(paths.allSatisfy { !$0.contains("//") }, "\(paths)")
    }
}
