import Foundation
import MediaJobs
import TestSupport
import Testing

/// The drift checks of `CatalogDriftTests` can fail: copies of openapi.yaml, docs/cli.md and a command's
/// flags with drift planted in them are each reported where the drift is.
@Suite struct PlantedDriftTests {
    /// openapi.yaml with `original` replaced by `planted` (which must be there), as the checks read it.
    static func openAPI(replacing original: String, with planted: String) throws -> [String] {
        let text = try String(contentsOf: OpenAPISpecTests.spec, encoding: .utf8)
        let range = try #require(text.range(of: original), "openapi.yaml has no \(original)")
        let scratch = try Scratch("planted-drift")
        let path = try scratch.write("openapi.yaml", Array(text.replacingCharacters(in: range, with: planted).utf8))
        return CatalogDriftTests.problems(of: try OpenAPIDocument.load(path))
    }

    @Test(arguments: [
        // A kind gone from the `kind` path parameter.
        (
            "enum: [encode, decode, mux, demux, remux, transcode, package, thumbnails, waveform, repair]",
            "enum: [encode, decode, mux, demux, remux, transcode, thumbnails, waveform, repair]",
            "the kind parameter takes"
        ),
        // An option gone from the encode row of the table of kinds.
        ("`bitrate` 8k–512k (96k); ", "", "the encode row names the options"),
        // A kind gone from a sentence that lists them.
        (
            "remux, transcode, package, thumbnails, waveform, repair and probe", "remux, transcode and probe",
            "lists some kinds"
        ),
        // A kind gone from the bold of an option parameter.
        (
            "**remux**, **transcode**: write fragmented", "**remux**: write fragmented",
            "FragmentedOption: the description names"
        ),
        // A kind gone from an input parameter.
        (
            "**mux**, **encode**: the tus upload that is the `audio` part", "**mux**: the tus upload",
            "audio_upload: names"
        ),
    ])
    func openAPIDriftIsFound(original: String, planted: String, reported: String) throws {
        let problems = try Self.openAPI(replacing: original, with: planted)
        #expect(problems.contains { $0.contains(reported) }, "\(problems.joined(separator: "\n"))")
    }

    @Test func documentDriftIsFound() throws {
        let cli = try String(
            contentsOf: CatalogDriftTests.root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let withoutRepair = try #require(cli.components(separatedBy: "\n## repair\n").first)
        #expect(CatalogDrift.commandLineDocument(withoutRepair).contains("docs/cli.md: no section ## repair"))
        let withoutFps = cli.replacingOccurrences(of: "--fps", with: "--rate")
        #expect(CatalogDrift.commandLineDocument(withoutFps).contains { $0.contains("## mux: names neither --fps") })
        let prose = "A mediad job is an encode, decode or mux job."
        #expect(CatalogDrift.prose(prose, in: "planted.md").count == 1)
        #expect(
            CatalogDrift.prose(
                "salvaged (`damaged=salvage`, for remux, demux, decode, package and waveform)", in: "planted.md"
            ).isEmpty)
        let table = "| kind | options |\n| --- | --- |\n| `mux` | `format` |\n"
        let problems = CatalogDrift.kindTables(in: table, at: "planted.md")
        #expect(problems.contains { $0.contains("the mux row names the options [\"format\"]") })
        #expect(problems.contains { $0.contains("no row for") })
    }

    @Test func commandDriftIsFound() throws {
        let dump = try Command.run(ServerProcess.binary, ["encode", "--experimental-dump-help"])
        var flags = try CatalogDrift.flags(fromDumpedHelp: dump.stdout)
        flags["bitrate"] = nil
        flags["crf"] = "Quality."
        flags["speed"] = "How fast."
        let problems = CatalogDrift.command(flags, of: .encode)
        #expect(problems.contains("mediad encode: no --bitrate for the option bitrate"))
        #expect(problems.contains { $0.hasPrefix("mediad encode --crf: the help \"Quality.\"") })
        #expect(problems.contains { $0.hasPrefix("mediad encode: --speed is no option") })
    }
}
