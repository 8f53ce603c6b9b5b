import Foundation
import TestSupport

/// tuspy (tus's Python client, pinned in the Makefile) driving a real server: each script gets `ENDPOINT`
/// (the server's `/uploads`), `HEADERS` (a bearer token when given) and `result(...)`, which prints the
/// JSON the test reads back.
enum Tuspy {
    static func run(_ server: ServerProcess, token: String? = nil, _ body: String) throws -> [String: Any] {
        let headers = token.map { "{\"Authorization\": \"Bearer \($0)\"}" } ?? "{}"
        let script = """
            import hashlib, json, sys, threading
            from tusclient import client
            ENDPOINT = "\(server.url("/uploads"))"
            HEADERS = \(headers)
            def result(**values):
                sys.stdout.write(json.dumps(values))
            """ + "\n" + body
        let output = try Python.run(script)
        return (try JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
    }

    /// Takes up the upload at `location` (a path on `server`) with tuspy, which asks the server for its offset
    /// first, and sends the rest of `file`; returns the offset it started from (`start`) and the final
    /// answer's `Mediad-Job` (`job`).
    static func resume(_ server: ServerProcess, _ location: String, file: String) throws -> [String: Any] {
        try run(
            server,
            """
            uploader = client.TusClient(ENDPOINT).uploader("\(file)", url="\(server.url(location))", chunk_size=32768)
            start = uploader.offset
            uploader.upload()
            result(start=start, job=uploader.request.response_headers.get("mediad-job"))
            """)
    }

    /// `Upload-Metadata`-style pairs as a Python dict literal.
    static func metadata(_ pairs: [String: String]) -> String {
        "{" + pairs.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ") + "}"
    }
}

/// Plain tus requests through curl, for what a well-behaved client never sends.
enum Tus {
    static let version = ["-H", "Tus-Resumable: 1.0.0"]

    static func create(_ server: ServerProcess, length: Int, metadata: String? = nil, _ extra: [String] = [])
        throws -> Curl.Reply
    {
        var arguments = ["-X", "POST"] + version + ["-H", "Upload-Length: \(length)"] + extra
        if let metadata { arguments += ["-H", "Upload-Metadata: \(metadata)"] }
        return try Curl.run(server.url("/uploads"), arguments)
    }

    static func head(_ server: ServerProcess, _ location: String, _ extra: [String] = []) throws -> Curl.Reply {
        try Curl.run(server.url(location), ["-I"] + version + extra)
    }

    /// A `PATCH` of the file at `path` (all of it) at `offset`.
    static func patch(
        _ server: ServerProcess, _ location: String, offset: Int, file path: String, _ extra: [String] = []
    )
        throws -> Curl.Reply
    {
        try Curl.run(
            server.url(location),
            ["-X", "PATCH"] + version + [
                "-H", "Upload-Offset: \(offset)", "-H", "Content-Type: application/offset+octet-stream",
                "--data-binary", "@\(path)",
            ] + extra)
    }

    /// Base64 of a UTF-8 string, as `Upload-Metadata` carries values.
    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
}
