import Foundation
import TestSupport
import Testing

/// HTTP/1.1 connection behaviour: keep-alive, pipelining, 100-continue, chunked bodies, retention.
@Suite(.serialized) struct ConnectionTests {
    /// Sends `requests` in one write on one TCP connection and returns everything the server answers
    /// until it closes (the last request should say `Connection: close`).
    func rawExchange(port: Int, _ requests: String) throws -> String {
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=10)
            s.sendall(sys.stdin.buffer.read())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                data += chunk
            sys.stdout.buffer.write(data)
            """
        let scratch = try Scratch("raw")
        let input = try scratch.write("request.txt", Array(requests.utf8))
        return try Command.run("sh", ["-c", "python3 -c '\(script)' < \(input)"]).text
    }

    @Test func answersPipelinedRequestsInOrderOnOneConnection() throws {
        let server = try ServerProcess()
        let answer = try rawExchange(
            port: server.port,
            "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nothing HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        let statuses = answer.components(separatedBy: .newlines)
            .filter { $0.hasPrefix("HTTP/1.1 ") }
        #expect(statuses == ["HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"])
        #expect(answer.contains("{\"status\":\"ok\"}"))
        #expect(answer.hasSuffix("{\"status\":\"ready\"}\n"))
    }

    /// Event streams and an idle client fill `--max-connections`: the monitoring paths still answer 200,
    /// each on a connection of its own past the cap, while any other request there gets 503 `server_busy`
    /// with `Retry-After` (so the streams' room below the cap is all they take from other requests).
    @Test(.timeLimit(.minutes(2))) func monitoringPathsAnswerWhenStreamsFillTheConnectionCap() throws {
        let server = try ServerProcess([
            "--max-connections", "6", "--max-streams", "5", "--max-streams-per-client", "5",
        ])
        let report = try Python.run(
            """
            import socket, time
            def connect():
                return socket.create_connection(("127.0.0.1", \(server.port)), timeout=10)
            streams = []
            for _ in range(5):
                s = connect()
                s.sendall(b"GET /events HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                head = b""
                while b"retry:" not in head:
                    head += s.recv(65536)
                streams.append((s, head.split(b"\\r\\n")[0].decode()))
            print("streams:", " ".join(status for _, status in streams))
            idle = connect()
            for method, path in [("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics"), ("HEAD", "/healthz"),
                                 ("GET", "/jobs"), ("GET", "/events")]:
                s = connect()
                s.sendall(method.encode() + b" " + path.encode() + b" HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                answer = b""
                try:
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        answer += chunk
                except OSError:
                    pass
                text = answer.decode("latin-1")
                code = "server_busy" if "server_busy" in text else "-"
                retry = "retry-after" if "\\r\\nretry-after:" in text.lower() else "-"
                print(method, path, text.split("\\r\\n")[0], code, retry)
                s.close()
            """)
        let lines = report.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "streams: HTTP/1.1 200 OK HTTP/1.1 200 OK HTTP/1.1 200 OK HTTP/1.1 200 OK HTTP/1.1 200 OK",
                "GET /healthz HTTP/1.1 200 OK - -",
                "GET /readyz HTTP/1.1 200 OK - -",
                "GET /metrics HTTP/1.1 200 OK - -",
                "HEAD /healthz HTTP/1.1 200 OK - -",
                "GET /jobs HTTP/1.1 503 Service Unavailable server_busy retry-after",
                "GET /events HTTP/1.1 503 Service Unavailable server_busy retry-after",
            ], "\(report)")
    }

    @Test func answersMalformedRequestsWith400() throws {
        let server = try ServerProcess()
        let answer = try rawExchange(port: server.port, "GARBAGE\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 400"))
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    @Test func reusesKeepAliveConnections() throws {
        let server = try ServerProcess()
        let output = try Command.run(
            "curl", ["-sS", "-v", "-o", "/dev/null", server.url("/healthz"), "-o", "/dev/null", server.url("/readyz")])
        #expect(output.stderr.contains("Re-using existing connection"))
    }

    @Test func answers100ContinueBeforeTheBody() throws {
        let server = try ServerProcess()
        let scratch = try Scratch("continue")
        let pcm = scratch.file("tone.pcm")
        try Command.run("truncate", ["-s", "2M", pcm])
        let reply = try Curl.run(
            server.url("/jobs/encode?wait=30"), ["-T", pcm, "-H", "Expect: 100-continue", "--expect100-timeout", "10"])
        #expect(reply.rawHeaders.hasPrefix("HTTP/1.1 100 Continue"))
        #expect(reply.status == 200)
        #expect(reply.json["state"] as? String == "succeeded")
    }

    @Test func acceptsChunkedUploads() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let reply = try Curl.run(server.url("/jobs/remux?wait=30"), ["-T", input, "-H", "Transfer-Encoding: chunked"])
        #expect(reply.json["state"] as? String == "succeeded")
        let inputs = reply.json["inputs"] as? [[String: Any]]
        let size = try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int
        #expect(inputs?.first?["size"] as? Int == size)
    }

    @Test func deletesFinishedJobsAfterTheRetention() throws {
        let server = try ServerProcess(["--retention", "1s"])
        let job = try Curl.run(server.url("/jobs/demux?wait=30"), ["-T", try Fixtures.h264AacMP4()]).json
        let id = try #require(job["id"] as? String)
        var gone = false
        for _ in 0..<50 where !gone {
            usleep(100_000)
            gone = try Curl.run(server.url("/jobs/\(id)")).status == 404
        }
        #expect(gone)
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory + "/jobs/\(id)"))
    }

    @Test func abandonedDownloadsLeaveNoOpenFiles() throws {
        let server = try ServerProcess()
        let job = try Curl.run(server.url("/jobs/demux?wait=30"), ["-T", try Fixtures.h264AacMP4()]).json
        let id = try #require(job["id"] as? String)
        let openFiles = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd").count) ?? 0 }
        _ = try Curl.run(server.url("/jobs/\(id)/outputs/video.h264"))
        let before = openFiles()
        // Each client asks for a download and resets the connection at once, or after its first bytes, so
        // the server meets a dead socket before, during or after it hands the file to sendfile.
        let script = """
            import socket, struct, sys
            for n in range(200):
                s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=10)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.sendall(b"GET /jobs/\(id)/outputs/video.h264 HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                if n % 2: s.recv(100)
                s.close()
            """
        try Command.run("python3", ["-c", script])
        var after = openFiles()
        for _ in 0..<50 where after > before {
            usleep(100_000)
            after = openFiles()
        }
        #expect(after <= before, "\(before) descriptors open before the abandoned downloads, \(after) after")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }
}
