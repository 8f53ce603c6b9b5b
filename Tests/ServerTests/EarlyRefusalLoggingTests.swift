import Foundation
import TestSupport
import Testing

/// A request refused from its head (404, 400, 413) whose client closes in the middle of the body, and one
/// whose body breaks off with a malformed chunk, are each logged and counted once, under their own method
/// and route: the parser's failure inside the body is no second request (`method=INVALID status=400`).
@Suite struct EarlyRefusalLoggingTests {
    /// Sends `head` and `body` on a connection, closes the sending side and reads the answer to its end.
    @Test func refusalsAndBrokenBodiesAreOneRequestEach() throws {
        let scratch = try Scratch("early-refusal-log")
        let log = scratch.file("server.log")
        let server = try ServerProcess(["--max-upload", "1K"], logFile: log)
        let cutShort = "Content-Length: 1000\r\n\r\n"
        let cases: [(path: String, head: String, body: String, status: Int)] = [
            ("/jobs/nope", cutShort, "0123456789", 404),
            ("/jobs/remux?format=nope", cutShort, "0123456789", 400),
            ("/jobs/encode", "Content-Length: 4096\r\n\r\n", "0123456789", 413),
            ("/jobs/demux", "Transfer-Encoding: chunked\r\n\r\n", "zz\r\n0123\r\n", 400),
        ]
        for (path, head, body, _) in cases {
            _ = try Python.exchange(
                port: server.port, "PUT \(path) HTTP/1.1\r\nHost: x\r\n" + head + body, halfClose: true)
        }
        // A request whose client is gone is logged once its response fails to go out: wait for all four.
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(10)
        repeat {
            usleep(100_000)
            lines = try RequestLoggingTests.lines(log).filter { $0.contains("mediad.http: request") }
        } while lines.count < cases.count && Date() < deadline
        let metrics = try Curl.run(server.url("/metrics")).text
        #expect(!metrics.contains("INVALID"), "\(metrics.split(separator: "\n").filter { $0.contains("INVALID") })")
        #expect(!lines.contains { $0.contains("method=INVALID") }, "\(lines)")
        for (path, _, _, status) in cases {
            let route = path.split(separator: "?").first.map(String.init) ?? path
            let logged = lines.filter { $0.contains("path=\(route) ") }
            #expect(logged.count == 1 && logged.first?.contains("status=\(status)") == true, "\(path): \(logged)")
        }
    }
}
