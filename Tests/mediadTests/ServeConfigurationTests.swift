import Foundation
import TestSupport
import Testing

/// `mediad serve --help`, the Configuration table of docs/operations.md and the `MEDIAD_*` environment describe
/// the same settings: every flag has its row and its variable, and the variable is read as the flag is.
@Suite struct ServeConfigurationTests {
    /// The flags `mediad serve --help` lists, `--help` aside: `--host`, `--port`, …
    static func helpFlags() throws -> [String] {
        let help = try Command.run(CommandLineTests.binary, ["serve", "--help"]).text
        let options = try #require(help.range(of: "OPTIONS:")).upperBound
        return help[options...].split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            // --help and --version are argument-parser's own, not settings.
            guard let first = words.first, first.hasPrefix("--"), first != "--help", first != "--version" else {
                return nil
            }
            return String(first)
        }
    }

    /// The rows of the Configuration table of docs/operations.md, by flag: `--max-upload` → `| `--max-upload` | …`.
    static func documentedRows() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let operations = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let section = try #require(operations.components(separatedBy: "\n## Configuration\n").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        var rows: [String: String] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `--") {
            let flag = line.dropFirst(3).prefix { $0 != "`" }
            rows[String(flag)] = String(line)
        }
        return rows
    }

    /// `--max-upload` → `MEDIAD_MAX_UPLOAD`.
    static func environmentVariable(_ flag: String) -> String {
        // The database's URL goes by the name such URLs usually have.
        if flag == "--database" { return "MEDIAD_DATABASE_URL" }
        return "MEDIAD_" + flag.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `mediad serve` on a free port and a scratch data directory, with `environment` set.
    static func serve(_ arguments: [String] = [], environment: [String: String]) throws -> Command.Output {
        let scratch = try Scratch("serve-environment")
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try Command.run(
            "/usr/bin/env",
            assignments + [CommandLineTests.binary, "serve", "--port", "0", "--data-dir", scratch.file("data")]
                + arguments,
            allowFailure: true)
    }

    @Test func everyFlagHasItsDocumentedRowAndEnvironmentVariable() throws {
        let flags = try Self.helpFlags()
        let rows = try Self.documentedRows()
        let help = try Command.run(CommandLineTests.binary, ["serve", "--help"]).text
        #expect(flags.count >= 30, "\(flags)")
        #expect(Set(rows.keys) == Set(flags), "documented rows \(rows.keys.sorted()) against --help \(flags)")
        for flag in flags {
            let variable = Self.environmentVariable(flag)
            let row = try #require(rows[flag], "\(flag) has no row in docs/operations.md")
            #expect(row.hasPrefix("| `\(flag)` | `\(variable)"), "\(row)")
            #expect(help.contains(variable), "`mediad serve --help` does not name \(variable)")
        }
    }

    /// A variable's value is read as its flag's would be: refused with a usage error naming the flag.
    @Test(arguments: [
        (["MEDIAD_MAX_UPLOAD": "99999999999T"], "--max-upload must be a size"),
        (["MEDIAD_HEADER_TIMEOUT": "1e300"], "--header-timeout must be a duration"),
        (["MEDIAD_WORKERS": "0"], "--workers must be an integer from 1 to 256"),
        (["MEDIAD_MIN_FREE_DISK": "-1"], "--min-free-disk must be a size"),
        (["MEDIAD_QUOTA": "lots"], "--quota must be a size"),
        (["MEDIAD_MAX_PENDING_UPLOADS": "0"], "--max-pending-uploads must be an integer from 1 to 100000"),
        (["MEDIAD_LOG_FORMAT": "xml"], "--log-format must be text or json, not 'xml'"),
        (["MEDIAD_DATABASE_URL": "mysql://db/mediad"], "--database: invalid_database_url"),
        (["MEDIAD_ISOLATION": "thread"], "--isolation must be process or none"),
        (["MEDIAD_SHARED_STORE": "1", "MEDIAD_LEASE_TTL": "soon"], "--lease-ttl must be a duration"),
        (["MEDIAD_SHARED_STORE": "maybe"], "MEDIAD_SHARED_STORE must be 1 or 0"),
        (["MEDIAD_WEBHOOK_ALLOW": "example.com"], "--webhook-allow needs --webhook-secret"),
        (["MEDIAD_AUTH_TOKENS": "/nonexistent/tokens"], "cannot read the token file"),
        (["MEDIAD_EGRESS_ALLOW": "10.0.0.0/33"], "--egress-allow: '10.0.0.0/33' is not an egress rule"),
        (["MEDIAD_EGRESS_ALLOW": "*.example.com"], "--egress-allow: '*.example.com' is not an egress rule"),
        (["MEDIAD_EGRESS_IDLE_TIMEOUT": "0"], "--egress-idle-timeout must be more than 0"),
        (["MEDIAD_INPUT_TIMEOUT": "0"], "--input-timeout must be more than 0"),
        (["MEDIAD_INPUT_TIMEOUT": "soon"], "--input-timeout must be a duration"),
        (["MEDIAD_MAX_FETCHES": "0"], "--max-fetches must be an integer from 1 to 256"),
        (["MEDIAD_OBJECTS": "http://bucket/media"], "invalid_objects: --objects must start with s3://"),
        (["MEDIAD_OBJECTS": "s3://Bucket_Name/media"], "invalid_objects: not a valid S3 bucket name"),
        (
            ["MEDIAD_OBJECTS": "s3://media/x", "MEDIAD_S3_ENDPOINT": "http://127.0.0.1:9000/path"],
            "--s3-endpoint must be"
        ),
        (["MEDIAD_OBJECTS": "s3://media/x", "MEDIAD_S3_PATH_STYLE": "maybe"], "MEDIAD_S3_PATH_STYLE must be 1 or 0"),
        (["MEDIAD_OBJECTS": "s3://media/x", "MEDIAD_S3_REGION": "EU West"], "--s3-region must be lowercase"),
        (
            ["MEDIAD_S3_ENDPOINT": "http://127.0.0.1:9000"],
            "--s3-endpoint, --s3-region, --s3-path-style, --s3-retry-window, --objects-proxy and --objects-stage-whole need --objects"
        ),
        (["MEDIAD_OBJECTS_PROXY": "1"], "need --objects"),
        (["MEDIAD_OBJECTS_STAGE_WHOLE": "1"], "need --objects"),
        (
            ["MEDIAD_OBJECTS": "s3://media/x", "MEDIAD_OBJECTS_STAGE_WHOLE": "maybe"],
            "MEDIAD_OBJECTS_STAGE_WHOLE must be 1 or 0"
        ),
        (["MEDIAD_S3_RETRY_WINDOW": "30s"], "need --objects"),
        (["MEDIAD_OBJECTS": "s3://media/x", "MEDIAD_S3_RETRY_WINDOW": "soon"], "--s3-retry-window must be a duration"),
        (["MEDIAD_OBJECTS": "s3://media/x", "MEDIAD_S3_RETRY_WINDOW": "2d"], "--s3-retry-window must be at most 1d"),
    ])
    func environmentValuesAreReadLikeFlags(environment: [String: String], message: String) throws {
        let result = try Self.serve(environment: environment)
        #expect(result.status == 64, "\(environment): status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(environment): \(result.stderr)")
    }

    /// A flag wins over its variable: the bad `MEDIAD_LOG_FORMAT` is never read, so the first error is a later one.
    @Test func aFlagWinsOverTheEnvironment() throws {
        let result = try Self.serve(
            ["--log-format", "json"], environment: ["MEDIAD_LOG_FORMAT": "xml", "MEDIAD_WEBHOOK_RETRY_BASE": "0"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--webhook-retry-base must be more than 0"), "\(result.stderr)")
    }

    /// Settings taken from the environment alone run a server: on the host and port given, logging JSON lines
    /// that report the isolation given.
    @Test func aServerRunsFromTheEnvironment() throws {
        let scratch = try Scratch("serve-environment")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
        process.arguments = ["serve"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "MEDIAD_HOST": "127.0.0.1", "MEDIAD_PORT": "0", "MEDIAD_DATA_DIR": scratch.file("data"),
            "MEDIAD_LOG_FORMAT": "json", "MEDIAD_LOG_LEVEL": "info", "MEDIAD_ISOLATION": "none",
        ]) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let log = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        // SIGKILL: this test is about reading the settings, not about a graceful stop.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(line.hasPrefix("mediad: listening on http://127.0.0.1:"), "\(line)")
        #expect(FileManager.default.fileExists(atPath: scratch.file("data/jobs")))
        #expect(log.hasPrefix("{\"") && log.contains("\"message\":\"listening\""), "\(log)")
        #expect(log.contains("\"isolation\":\"none\""), "\(log)")
    }
}
