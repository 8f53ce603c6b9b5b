import Foundation
import TestSupport

/// An https receiver on loopback for the tests: Python's own HTTP server and TLS (independent of mediad's
/// client), with certificates that `openssl` makes for each test. It answers every request `200 ok-tls`
/// and keeps it like `WebhookReceiver`. Call `stop()` when done.
final class TLSReceiver: @unchecked Sendable {
    // Immutable after init; the process is stopped once, by `stop()`.
    /// A test certificate authority and a server certificate it signed.
    struct Certificates {
        /// The authority's certificate (PEM), what a client must trust.
        var authority: String
        var certificate: String
        var key: String
    }

    /// The receiver printed no port.
    struct StartFailure: Error {
        var printed: String
    }

    private let process = Process()
    private let log: String
    let port: Int

    /// Starts serving `certificates` on 127.0.0.1 at a free port.
    init(_ certificates: Certificates, in scratch: Scratch) throws {
        log = scratch.file("received-\(UUID().uuidString).jsonl")
        let script = try scratch.write("tls_receiver.py", Array(Self.script.utf8))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, certificates.certificate, certificates.key, log]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartFailure(printed: String(decoding: line, as: UTF8.self))
        }
        self.port = port
    }

    var url: String { "https://127.0.0.1:\(port)" }

    /// The requests answered so far.
    var received: [WebhookReceiver.Received] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let target = object["path"] as? String, let headers = object["headers"] as? [String: String],
                let body = object["body"] as? String
            else { return nil }
            return WebhookReceiver.Received(target: target, headers: headers, body: Data(Self.bytes(hex: body)))
        }
    }

    /// Kills the receiver. SIGKILL, because a child inherits the blocked signals of the test thread that
    /// started it, SIGTERM among them.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Makes a certificate authority and a server certificate it signs for `names` (subjectAltName
    /// entries such as `DNS:localhost`, `IP:127.0.0.1`), with P-256 keys, valid for two days.
    static func certificates(for names: [String], in scratch: Scratch) throws -> Certificates {
        let stem = scratch.file("tls-\(UUID().uuidString.prefix(8))")
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Command.run(
            "openssl",
            ["req", "-x509"] + curve + [
                "-keyout", stem + "-ca.key", "-out", stem + "-ca.pem", "-days", "2", "-subj", "/CN=mediad test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try Command.run(
            "openssl",
            ["req"] + curve + [
                "-keyout", stem + ".key", "-out", stem + ".csr", "-subj", "/CN=mediad test receiver",
            ])
        let extensions = try scratch.write(
            "tls-\(UUID().uuidString.prefix(8)).ext",
            Array(
                """
                subjectAltName=\(names.joined(separator: ","))
                basicConstraints=CA:FALSE
                keyUsage=critical,digitalSignature
                extendedKeyUsage=serverAuth

                """.utf8))
        try Command.run(
            "openssl",
            [
                "x509", "-req", "-in", stem + ".csr", "-CA", stem + "-ca.pem", "-CAkey", stem + "-ca.key",
                "-CAcreateserial", "-out", stem + ".pem", "-days", "2", "-extfile", extensions,
            ])
        return Certificates(authority: stem + "-ca.pem", certificate: stem + ".pem", key: stem + ".key")
    }

    private static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    private static let script = """
        import http.server, json, ssl, sys

        certificate, key, log = sys.argv[1:4]

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                self.answer()

            def do_POST(self):
                self.answer()

            def do_PUT(self):
                self.answer()

            def answer(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                entry = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body.hex()}
                with open(log, "a") as file:
                    file.write(json.dumps(entry) + "\\n")
                self.send_response(200)
                self.send_header("Content-Length", "6")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"ok-tls")

            def log_message(self, *arguments):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """
}
