import Foundation
import MediaJobs
import TestSupport
import Testing

/// The catalog (`JobCatalog`) is the one source of truth for the job kinds and their options, and what repeats
/// it says the same: openapi.yaml (every list of kinds, the option and input parameters, the table of kinds,
/// its prose), the README's and docs' tables and prose, docs/cli.md, and each kind's command. The web console
/// builds its form from `GET /catalog`; `ConsoleBrowserTests` checks each kind's form against it.
@Suite struct CatalogDriftTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// README.md, CHANGELOG.md and docs/*.md, each with its path from the root.
    static func documents() throws -> [(path: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md", "CHANGELOG.md"] + docs).map {
            ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// Every problem of openapi.yaml: its lists of kinds, option and input parameters, tables and prose.
    static func problems(of document: OpenAPIDocument) -> [String] {
        var problems =
            CatalogDrift.kindLists(in: document) + CatalogDrift.optionParameters(in: document)
            + CatalogDrift.inputParameters(in: document)
        let parameterNames = document.parameters.mapValues { $0["name"] as? String }
        for (pointer, text) in document.strings {
            problems += CatalogDrift.kindTables(in: text, at: "openapi.yaml#" + pointer)
            // A parameter's description may list the kinds that take it.
            let parts = pointer.split(separator: "/")
            let subject = parts.count == 4 && parts[1] == "parameters" ? parameterNames[String(parts[2])] ?? nil : nil
            problems += CatalogDrift.prose(text, in: "openapi.yaml#" + pointer, subject: subject)
        }
        return problems
    }

    @Test func openAPISaysWhatTheCatalogSays() throws {
        let problems = Self.problems(of: try OpenAPIDocument.load())
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func documentsSayWhatTheCatalogSays() throws {
        var problems: [String] = []
        for (path, text) in try Self.documents() {
            problems += CatalogDrift.kindTables(in: text, at: path) + CatalogDrift.prose(text, in: path)
            if path == "docs/cli.md" { problems += CatalogDrift.commandLineDocument(text) }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Each partial list of kinds that `CatalogDrift.partialLists` excuses is still in its document, so the
    /// table names no sentence that is gone.
    @Test func everyExcusedListIsThere() throws {
        let documents = try Self.documents()
        for excused in CatalogDrift.partialLists {
            let text = documents.first { $0.path == excused.document }?.text ?? ""
            #expect(
                KindMentions.enumerations(in: text).contains { $0.text.contains(excused.text) },
                "\(excused.document): no list \"\(excused.text)\"")
        }
    }

    @Test(arguments: JobCatalog.kinds)
    func eachKindsCommandTakesItsOptions(kind: JobKind) throws {
        let dump = try Command.run(ServerProcess.binary, [kind.rawValue, "--experimental-dump-help"])
        let problems = CatalogDrift.command(try CatalogDrift.flags(fromDumpedHelp: dump.stdout), of: kind)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
