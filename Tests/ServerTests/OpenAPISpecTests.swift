import Foundation
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
        let served = Set(ServiceRoute.allCases.map { "\($0.route.method.rawValue) \($0.route.pattern)" })
        let described = Set(report.routes)
        #expect(report.routes.count == described.count, "a route is described twice")
        #expect(described.subtracting(served).sorted() == [], "in openapi.yaml but not served")
        #expect(served.subtracting(described).sorted() == [], "served but not in openapi.yaml")
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
