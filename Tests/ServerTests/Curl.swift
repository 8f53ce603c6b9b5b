import Foundation
import TestSupport

/// The `curl` binary, as users call it, with the response split into status, headers and body.
struct Curl {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        /// Every header block received, informational responses (100 Continue) included.
        var rawHeaders: String
        /// How long the exchange took as curl measured it, from its first step to the end of the body:
        /// the server's time without the time to start curl, which a loaded machine can stretch.
        var seconds: Double
        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }

        /// `error.code` of an error body.
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String { (json["error"] as? [String: Any])?["message"] as? String ?? "" }
    }

    /// Runs `curl <arguments> <url>` and captures the reply (`-D` headers, `-o` body, `-w` status and time).
    /// A transport error (e.g. the server closing while curl still sends a refused body) is not thrown:
    /// the status tells what the server answered, 0 if nothing.
    static func run(_ url: String, _ arguments: [String] = []) throws -> Reply {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        let headerFile = scratch.path + ".headers"
        let bodyFile = scratch.path + ".body"
        defer {
            try? FileManager.default.removeItem(atPath: headerFile)
            try? FileManager.default.removeItem(atPath: bodyFile)
        }
        let output = try Command.run(
            "curl", ["-sS", "-D", headerFile, "-o", bodyFile, "-w", "%{http_code} %{time_total}"] + arguments + [url],
            allowFailure: true)
        let rawHeaders = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        // Keep the last header block (after any 100 Continue).
        let block = rawHeaders.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        var headers: [String: String] = [:]
        for line in block.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let written = output.text.split(separator: " ")
        return Reply(
            status: written.first.flatMap { Int($0) } ?? 0, headers: headers,
            body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data(), rawHeaders: rawHeaders,
            seconds: written.last.flatMap { Double($0) } ?? .infinity)
    }
}
