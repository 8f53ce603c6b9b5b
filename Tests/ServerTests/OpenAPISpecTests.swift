import Foundation
import MediaJobs
import MediadHTTP
import NIOHTTP1
import Server
import TestSupport
import Testing

/// `openapi.yaml` against itself (valid OpenAPI 3.1, every example valid against its schema) and against the
/// route table, through `openapi_check.py` (openapi-spec-validator and jsonschema; `make deps` installs them).
@Suite struct OpenAPISpecTests {
    /// What `openapi_check.py` prints.
    struct Report: Decodable {
        var routes: [String]
        var problems: [String]
        /// --self-test only: the pointers under which the planted faults must be reported.
        var planted: [String]?
        var kinds: Kinds

        /// The `kind` path parameter's values, and each kind's query options with the values their
        /// schemas allow (empty for a schema without `enum`).
        struct Kinds: Decodable {
            var names: [String]
            var options: [String: [String: [String]]]
        }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "openapi_check.py")
    static let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml")

    static func check(_ extra: [String] = []) throws -> Report {
        let output = try Command.run("python3", [script.path] + extra + [spec.path])
        return try JSONDecoder().decode(Report.self, from: output.stdout)
    }

    @Test func specAndExamplesAreValid() throws {
        let report = try Self.check()
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    @Test func describesExactlyTheRouteTable() throws {
        let report = try Self.check()
        let served = Set(ServiceRoute.allCases.map { "\($0.route.method.rawValue) \($0.route.template)" })
        let described = Set(report.routes)
        #expect(report.routes.count == described.count, "a route is described twice")
        #expect(described.subtracting(served).sorted() == [], "in openapi.yaml but not served")
        #expect(served.subtracting(described).sorted() == [], "served but not in openapi.yaml")
    }

    /// Every kind of the catalog is described, with exactly the options it takes, each choice with every
    /// value it allows; `callback_url` belongs to the service, not to a kind.
    @Test func describesEveryKindOfTheCatalog() throws {
        let described = try Self.check().kinds
        #expect(described.names == JobCatalog.names)
        for kind in JobCatalog.kinds {
            var options = described.options[kind.rawValue] ?? [:]
            options["callback_url"] = nil
            #expect(
                Set(options.keys) == Set(kind.optionDescriptions.map(\.name)), "the options of \(kind) in openapi.yaml")
            for option in kind.optionDescriptions where option.type == .choice {
                let allowed = Set(options[option.name] ?? [])
                #expect(Set(option.allowed).isSubset(of: allowed), "\(kind) \(option.name): \(option.allowed)")
            }
        }
    }

    /// The check can fail: a copy of the spec with planted faults (a wrong job example, a wrong inline
    /// example, a JSON response without example, a structural error, an unquoted YAML date) reports each.
    @Test func checkFindsPlantedFaults() throws {
        let report = try Self.check(["--self-test"])
        let planted = try #require(report.planted)
        #expect(planted.count >= 5)
        for location in planted {
            #expect(
                report.problems.contains { $0.hasPrefix(location) }, "no problem reported under \(location)")
        }
    }
}
