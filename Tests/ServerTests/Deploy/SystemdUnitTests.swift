import Foundation
import Server
import TestSupport
import Testing

/// `deploy/systemd/mediad.service`: `systemd-analyze verify` finds nothing to say about it (run on a copy
/// whose ExecStart is the built binary, since verify checks that the program exists), and the settings
/// that matter are there.
@Suite struct SystemdUnitTests {
    static let unit = DockerfileTests.root.appendingPathComponent("deploy/systemd/mediad.service")

    /// `Key=value` lines of the unit (a key given twice keeps every value).
    static func settings() throws -> [String: [String]] {
        var settings: [String: [String]] = [:]
        for line in try String(contentsOf: unit, encoding: .utf8).split(separator: "\n") {
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return settings
    }

    /// What `systemd-analyze verify` says about `text` installed as a unit named `mediad.service`.
    static func verify(_ text: String) throws -> String {
        let scratch = try Scratch("systemd-unit")
        let path = scratch.file("mediad.service")
        try text.replacingOccurrences(of: "/usr/local/bin/mediad", with: ServerProcess.binary)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let output = try Command.run("systemd-analyze", ["verify", path], allowFailure: true)
        return (output.stderr + output.text).split(separator: "\n").filter { $0.contains("mediad.service") }
            .joined(separator: "\n")
    }

    @Test func verifiesCleanly() throws {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        #expect(try Self.verify(text) == "")
        // The check can fail: a misspelt key and a bad value are reported.
        let broken = text.replacingOccurrences(of: "ProtectHome=yes", with: "ProtectHomes=yes")
            .replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSystem=very")
        let complaints = try Self.verify(broken)
        #expect(complaints.contains("ProtectHomes") && complaints.contains("very"), "\(complaints)")
    }

    @Test func isHardenedAndDrainsOnStop() throws {
        let settings = try Self.settings()
        for (key, value) in [
            ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
            ("PrivateDevices", "yes"), ("DynamicUser", "yes"), ("StateDirectory", "mediad"),
            ("Restart", "on-failure"), ("KillSignal", "SIGTERM"),
        ] {
            #expect(settings[key] == [value], "\(key)")
        }
        #expect(settings["RestrictAddressFamilies"]?.first?.contains("AF_INET6") == true)
        #expect(settings["MemoryMax"] != nil && settings["LimitNOFILE"] != nil && settings["User"] != nil)
        let start = try #require(settings["ExecStart"]?.first)
        #expect(start.hasPrefix("/usr/local/bin/mediad serve") && start.contains("--data-dir /var/lib/mediad"))
        #expect(settings["ReadWritePaths"] == ["/var/lib/mediad"])
        let stop = try #require(settings["TimeoutStopSec"]?.first.flatMap(Double.init))
        let grace = try #require(
            settings["Environment"]?.first { $0.hasPrefix("MEDIAD_SHUTDOWN_GRACE=") }?.split(separator: "=").last)
        #expect(stop > (Double(grace.dropLast()) ?? .infinity), "stop timeout longer than the shutdown grace")
    }
}
