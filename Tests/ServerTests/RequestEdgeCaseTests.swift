import Foundation
import TestSupport
import Testing

/// Requests that are valid HTTP but unusual, and requests that are ambiguous: the first are served as
/// RFC 9112 says, the second refused; a store edited by hand never makes the server answer 500.
@Suite(.serialized) struct RequestEdgeCaseTests {
    @Test func twoAuthorizationOrHostHeadersAreRefused() throws {
        let scratch = try Scratch("singletons")
        let tokens = try scratch.write("tokens", Array("alice:alice-token-0123456789\nbob:bob-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        let both = try Curl.run(
            server.url("/jobs"),
            ["-H", "Authorization: Bearer alice-token-0123456789", "-H", "Authorization: Bearer bob-token-0123456789"])
        #expect(both.status == 400, "\(both.text)")
        #expect(both.errorCode == "invalid_request")
        #expect(both.text.contains("Authorization"))
        let hosts = try Python.run(
            """
            import socket
            s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n")
            print(s.recv(65536).split(b"\\r\\n")[0].decode())
            """)
        #expect(hosts.hasPrefix("HTTP/1.1 400"), "\(hosts)")
        #expect(
            try Curl.run(server.url("/jobs"), ["-H", "Authorization: Bearer alice-token-0123456789"]).status == 200)
    }

    @Test func absoluteFormTargetsAreServed() throws {
        let server = try ServerProcess()
        let answers = try Python.run(
            """
            import socket
            for target in ["http://127.0.0.1:\(server.port)/healthz", "HTTP://example.test/jobs?limit=1", "https://x/openapi.yaml", "http://x", "http://x?limit=2"]:
                s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=5)
                s.sendall(("GET %s HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n" % target).encode())
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                print(target, data.split(b"\\r\\n")[0].decode())
            """)
        let lines = answers.split(separator: "\n")
        #expect(lines.count == 5, "\(answers)")
        // The last two are the root, with and without a query: the index.
        for line in lines { #expect(line.hasSuffix("HTTP/1.1 200 OK"), "\(line)") }
    }

    @Test func aRecordNamingAnotherJobIsSkippedNotServedAs500() throws {
        let server = try ServerProcess()
        let job = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", try Fixtures.h264AacMP4()]).json
        let id = try #require(job["id"] as? String)
        server.stop()
        let record = server.dataDirectory + "/jobs/\(id)/job.json"
        let other = String(repeating: "A", count: 22)
        let text = try String(contentsOfFile: record, encoding: .utf8).replacingOccurrences(of: id, with: other)
        try text.write(toFile: record, atomically: true, encoding: .utf8)
        try server.launch()
        for target in [id, other] {
            let deleted = try Curl.run(server.url("/jobs/\(target)"), ["-X", "DELETE"])
            #expect(deleted.status == 404, "DELETE \(target): \(deleted.status) \(deleted.text)")
            #expect(try Curl.run(server.url("/jobs/\(target)")).status == 404)
        }
        #expect(((try Curl.run(server.url("/jobs")).json["jobs"] as? [Any]) ?? [1]).isEmpty)
        // Left for an operator to look at, untouched.
        #expect(FileManager.default.fileExists(atPath: record))
    }

    @Test func multipartPartHeadersAreBounded() throws {
        let server = try ServerProcess()
        let before = server.memoryKiB()
        let answers = try Python.run(
            """
            import socket, threading, time
            def send(body):
                head = ("POST /probe HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: multipart/form-data; boundary=XyZ\\r\\n"
                        "Content-Length: %d\\r\\n\\r\\n" % len(body)).encode()
                s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=20)
                start = time.monotonic()
                def upload():
                    try:
                        s.sendall(head + body)
                    except OSError:
                        pass
                # Sent beside the read: the answer comes while the body is still on its way.
                threading.Thread(target=upload, daemon=True).start()
                try:
                    line = s.recv(65536).split(b"\\r\\n")[0].decode()
                except OSError as error:
                    line = "no answer: %s" % error
                print("%s | %.2f" % (line, time.monotonic() - start))
            many = b"".join(b"X-Header-%d: %s\\r\\n" % (i, b"v" * 40) for i in range(100000))
            send(b"--XyZ\\r\\nContent-Disposition: form-data; name=\\"file\\"; filename=\\"a.mp4\\"\\r\\n" + many + b"\\r\\nabc\\r\\n--XyZ--\\r\\n")
            endless = b"X-Long: " + b"v" * (32 << 20)
            send(b"--XyZ\\r\\nContent-Disposition: form-data; name=\\"file\\"; filename=\\"a.mp4\\"\\r\\n" + endless + b"\\r\\n\\r\\nabc\\r\\n--XyZ--\\r\\n")
            """)
        let lines = answers.split(separator: "\n")
        #expect(lines.count == 2, "\(answers)")
        for line in lines {
            #expect(line.hasPrefix("HTTP/1.1 431"), "\(line)")
            let seconds = Double(line.split(separator: "|").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 99
            #expect(seconds < 10, "\(line)")
        }
        #expect(server.memoryKiB("VmHWM") - before < 64 * 1024, "peak RSS \(server.memoryKiB("VmHWM")) KiB")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    /// A multipart body closed with no part in it is `missing_input`, as an empty form is; one that stops
    /// inside a part is `invalid_request`, and its partial file is not kept.
    @Test func multipartBodiesWithoutAPartOrCutShort() throws {
        let server = try ServerProcess()
        let bodies = [
            ("--b--\r\n", "missing_input"),
            ("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc", "invalid_request"),
        ]
        for path in ["/jobs/remux", "/probe"] {
            for (body, code) in bodies {
                let reply = try Curl.run(
                    server.url(path), ["-H", "Content-Type: multipart/form-data; boundary=b", "--data-binary", body])
                #expect(reply.status == 400 && reply.errorCode == code, "\(path) \(body): \(reply.text)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
    }
}
