import Foundation
import TestSupport
import Testing

/// `GET /events` and `GET /jobs/{id}/events` followed with `curl -N` on a real server: the events a job
/// gives on its way to the end, tokens and ownership, the heartbeat, resuming with `Last-Event-ID`, and a
/// clean end at shutdown.
@Suite struct EventStreamTests {
    /// One event of a stream: its `event` field and its `data` as JSON.
    struct Event {
        var id: String?
        var type: String
        var data: [String: Any]
    }

    /// The events and comment lines of a `text/event-stream` body.
    static func parse(_ text: String) -> (events: [Event], comments: [String], retry: String?) {
        var events: [Event] = []
        var comments: [String] = []
        var retry: String?
        for block in text.components(separatedBy: "\n\n") where !block.isEmpty {
            var type = "message"
            var data = ""
            var id: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix(":") {
                    comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                }
                if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data += line.dropFirst(6) }
                if line.hasPrefix("retry: ") { retry = String(line.dropFirst(7)) }
            }
            guard !data.isEmpty else { continue }
            let json = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
            events.append(Event(id: id, type: type, data: json))
        }
        return (events, comments, retry)
    }

    /// `curl -N` following `url` in the background until it ends or `seconds` pass; the body goes to `output`.
    static func follow(_ url: String, _ arguments: [String] = [], seconds: Int, output: String) throws -> Process {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-N", "-sS", "--max-time", String(seconds), "-o", output] + arguments + [url]
        // Not the test's own output: a test runner waits for every holder of its pipes to close them.
        curl.standardOutput = FileHandle.nullDevice
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        return curl
    }

    /// Waits up to `seconds` for `condition`, looking every 100 ms.
    static func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    @Test(.timeLimit(.minutes(2))) func aJobsStreamFollowsItToItsEnd() throws {
        let server = try ServerProcess()
        let created = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.h264AacMP4()])
        let id = try #require(created.json["id"] as? String)
        let reply = try Curl.run(server.url("/jobs/\(id)/events"), ["-N", "--max-time", "60"])
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/event-stream")
        #expect(reply.headers["cache-control"] == "no-store")
        #expect(reply.headers["transfer-encoding"] == "chunked")
        #expect(reply.seconds < 50, "the stream ends with the job, not at curl's --max-time")
        let stream = Self.parse(reply.text)
        #expect(stream.retry == "3000")
        #expect(stream.events.allSatisfy { $0.type == "job" && $0.data["id"] as? String == id })
        let eventIDs = stream.events.map { $0.id.flatMap { Int64($0) } ?? -1 }
        #expect(eventIDs.allSatisfy { $0 > 0 } && eventIDs == eventIDs.sorted(), "\(eventIDs)")
        let states = stream.events.compactMap { $0.data["state"] as? String }
        #expect(states.last == "succeeded", "\(states)")
        #expect(Set(states).isSubset(of: ["queued", "running", "succeeded"]))
        #expect((stream.events.last?.data["outputs"] as? [Any])?.isEmpty == false)

        // A job already ended: its state, then the end.
        let again = Self.parse(try Curl.run(server.url("/jobs/\(id)/events"), ["--max-time", "10"]).text)
        #expect(again.events.count == 1)
        #expect(again.events.first?.data["state"] as? String == "succeeded")
        #expect(try Curl.run(server.url("/jobs/AAAAAAAAAAAAAAAAAAAAAA/events")).errorCode == "not_found")
        // HEAD answers the head of the stream alone.
        #expect(try Curl.run(server.url("/jobs/\(id)/events"), ["-I", "--max-time", "10"]).status == 200)
    }

    @Test(.timeLimit(.minutes(2))) func eventsShowTheCallersJobsBeatAndEndAtShutdown() throws {
        let scratch = try Scratch("events")
        let tokens = try scratch.write("tokens", Array("alice:alice-token-0123456789\nbob:bob-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        let alice = ["-H", "Authorization: Bearer alice-token-0123456789"]
        let bob = ["-H", "Authorization: Bearer bob-token-0123456789"]
        #expect(try Curl.run(server.url("/events"), ["--max-time", "10"]).errorCode == "unauthorized")

        let output = scratch.file("alice.events")
        let curl = try Self.follow(server.url("/events"), alice, seconds: 60, output: output)
        defer { if curl.isRunning { kill(curl.processIdentifier, SIGKILL) } }
        let body = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        #expect(Self.eventually(10) { body().contains("retry:") }, "the stream starts at once")

        let mine = try Curl.run(server.url("/jobs/remux?wait=60"), alice + ["-T", try Fixtures.h264AacMP4()])
        let theirs = try Curl.run(server.url("/jobs/remux?wait=60"), bob + ["-T", try Fixtures.h264AacMP4()])
        let mineID = try #require(mine.json["id"] as? String)
        let theirsID = try #require(theirs.json["id"] as? String)
        #expect(try Curl.run(server.url("/jobs/\(theirsID)/events"), alice + ["--max-time", "10"]).status == 404)
        #expect(
            Self.eventually(10) {
                Self.parse(body()).events.contains {
                    $0.data["id"] as? String == mineID && $0.data["state"] as? String == "succeeded"
                }
            })
        #expect(try Curl.run(server.url("/jobs/\(mineID)"), alice + ["-X", "DELETE"]).status == 204)
        #expect(
            Self.eventually(10) {
                Self.parse(body()).events.contains { $0.type == "deleted" && $0.data["id"] as? String == mineID }
            })
        // 15 s without an event: a heartbeat comment.
        #expect(Self.eventually(20) { Self.parse(body()).comments.contains("heartbeat") })

        let stream = Self.parse(body())
        #expect(!stream.events.contains { $0.data["id"] as? String == theirsID }, "bob's job is not alice's to see")
        #expect(!stream.events.contains { $0.data["owner"] as? String == "bob" })

        // SIGTERM ends the stream cleanly (curl exits 0, not 18 for a cut transfer) and the server stops.
        #expect(curl.isRunning)
        #expect(server.stop() == 0)
        curl.waitUntilExit()
        #expect(curl.terminationStatus == 0)
    }

    /// A stream holds its place under `--max-streams` (and its connection's under `--max-connections`),
    /// leaves the rest of the connections to other requests, and gives its place back as soon as its client
    /// goes: the closed connection ends the stream without waiting for the next heartbeat.
    @Test(.timeLimit(.minutes(2))) func streamsHoldTheirPlacesUntilTheirClientGoes() throws {
        let scratch = try Scratch("events-limit")
        let server = try ServerProcess([
            "--max-connections", "3", "--max-streams", "2", "--max-streams-per-client", "2",
        ])
        let first = try Self.follow(server.url("/events"), seconds: 60, output: scratch.file("first"))
        let second = try Self.follow(server.url("/events"), seconds: 60, output: scratch.file("second"))
        defer { [first, second].filter(\.isRunning).forEach { kill($0.processIdentifier, SIGKILL) } }
        let started = { (name: String) in
            ((try? String(contentsOfFile: scratch.file(name), encoding: .utf8)) ?? "").contains("retry:")
        }
        #expect(Self.eventually(10) { started("first") && started("second") })
        #expect(try Curl.run(server.url("/events"), ["--max-time", "10"]).errorCode == "too_many_streams")
        #expect(try Curl.run(server.url("/jobs")).status == 200, "the streams leave a connection for requests")
        // SIGKILL, a client that vanishes (curl started from the test runner ran on to --max-time on SIGTERM).
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(
            try Self.eventually(5) {
                try Curl.run(server.url("/events"), ["-N", "--max-time", "2"]).text.contains("retry:")
            })
    }

    /// Streams past a cap are refused with 429 `too_many_streams` and `Retry-After` before they start: per
    /// API token (from another address), per client address (with another token), and overall; a place
    /// comes back when its client goes, and `GET /jobs/{id}/events` counts as `GET /events` does.
    @Test(.timeLimit(.minutes(3))) func streamsPastTheirCapsGet429BeforeTheyStart() throws {
        let scratch = try Scratch("events-caps")
        let names = ["alice", "bob", "carol", "dave"]
        let tokens = try scratch.write(
            "tokens", Array(names.map { "\($0):\($0)-token-0123456789\n" }.joined().utf8))
        let server = try ServerProcess([
            "--auth-tokens", tokens, "--max-connections", "12", "--max-streams", "4", "--max-streams-per-client", "2",
        ])
        /// curl's arguments for `name`'s token from the loopback address `address` (127.0.0.x are all local).
        let client = { (name: String, address: String) in
            ["-H", "Authorization: Bearer \(name)-token-0123456789", "--interface", address]
        }
        let job = try Curl.run(
            server.url("/jobs/remux?wait=60"), client("dave", "127.0.0.4") + ["-T", try Fixtures.h264AacMP4()])
        let jobID = try #require(job.json["id"] as? String)
        var followers: [String: Process] = [:]
        defer { followers.values.filter(\.isRunning).forEach { kill($0.processIdentifier, SIGKILL) } }
        let started = { (name: String) in
            ((try? String(contentsOfFile: scratch.file(name), encoding: .utf8)) ?? "").contains("retry:")
        }
        let follow = { (name: String, arguments: [String]) in
            followers[name] = try Self.follow(
                server.url("/events"), arguments, seconds: 120, output: scratch.file(name))
            #expect(Self.eventually(10) { started(name) }, "\(name)'s stream did not start")
        }
        let refused = { (path: String, arguments: [String], why: String) in
            let reply = try Curl.run(server.url(path), arguments + ["--max-time", "10"])
            #expect(reply.status == 429, "\(why): \(reply.status) \(reply.text)")
            #expect(reply.errorCode == "too_many_streams", "\(why): \(reply.text)")
            #expect(reply.headers["retry-after"] == "10", "\(why): \(reply.headers)")
            #expect(reply.headers["content-type"] == "application/json", "\(why): \(reply.headers)")
        }

        try follow("alice-1", client("alice", "127.0.0.1"))
        try follow("alice-2", client("alice", "127.0.0.1"))
        try refused("/events", client("alice", "127.0.0.2"), "alice's third stream, from another address")
        try refused("/events", client("bob", "127.0.0.1"), "a third stream from alice's address")
        try follow("bob", client("bob", "127.0.0.2"))
        try follow("carol", client("carol", "127.0.0.3"))
        try refused("/events", client("dave", "127.0.0.4"), "a fifth stream on the server")
        try refused("/jobs/\(jobID)/events", client("dave", "127.0.0.4"), "a job's stream as the fifth")

        // alice's first client goes: its place comes back, and dave's job stream (of a job already ended:
        // its state, then the end) gets it, and again, as each gives it back at its end.
        let first = try #require(followers["alice-1"])
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(
            try Self.eventually(10) {
                try Curl.run(server.url("/jobs/\(jobID)/events"), client("dave", "127.0.0.4") + ["--max-time", "10"])
                    .status == 200
            })
        let again = try Curl.run(
            server.url("/jobs/\(jobID)/events"), client("dave", "127.0.0.4") + ["--max-time", "10"])
        #expect(again.status == 200 && Self.parse(again.text).events.count == 1, "\(again.status) \(again.text)")
        let othersRunning = followers.filter { $0.key != "alice-1" }.values.allSatisfy(\.isRunning)
        #expect(othersRunning, "the other streams went on")
    }

    /// A subscriber that stops reading is closed by `--send-timeout`, although its heartbeats are tiny and
    /// the socket buffers would take them for hours, while one that reads keeps its stream. Both follow
    /// `/events` on raw sockets, the first with a small receive buffer that fills after a few heartbeats;
    /// the server's log line for its request tells when the server ended its stream, and only then is
    /// its socket read, to its end.
    @Test(.timeLimit(.minutes(3))) func aSubscriberThatStopsReadingIsClosedWhileAReaderStays() throws {
        let scratch = try Scratch("events-stalled")
        let log = scratch.file("server.log")
        let server = try ServerProcess(["--send-timeout", "2s", "--event-heartbeat", "0.1s"], logFile: log)
        let report = try Python.run(
            """
            import socket, threading, time
            def subscribe(request_id, receive_buffer=None):
                s = socket.socket()
                if receive_buffer:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
                s.connect(("127.0.0.1", \(server.port)))
                s.sendall(b"GET /events HTTP/1.1\\r\\nHost: x\\r\\nX-Request-Id: " + request_id + b"\\r\\n\\r\\n")
                return s
            received = [0]
            reader_end = []
            def read_on(s):
                try:
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        received[0] += len(chunk)
                except OSError as error:
                    reader_end.append(str(error))
                reader_end.append("closed")
            reader = subscribe(b"reading-subscriber")
            threading.Thread(target=read_on, args=(reader,), daemon=True).start()
            quiet = subscribe(b"quiet-subscriber", 1024)
            logged = lambda request_id: request_id in open("\(log)").read()
            deadline = time.monotonic() + 90
            while not logged("quiet-subscriber") and time.monotonic() < deadline:
                time.sleep(0.1)
            print("quiet stream ended:", logged("quiet-subscriber"))
            quiet.settimeout(5)
            state = "open"
            deadline = time.monotonic() + 20
            try:
                while time.monotonic() < deadline:
                    if not quiet.recv(65536):
                        state = "closed"
                        break
            except socket.timeout:
                pass
            except OSError:
                state = "closed"
            print("quiet socket:", state)
            before = received[0]
            deadline = time.monotonic() + 30
            while received[0] < before + 300 and not reader_end and time.monotonic() < deadline:
                time.sleep(0.1)
            reading = received[0] >= before + 300 and not reader_end
            print("reader still reading:", reading and not logged("reading-subscriber"))
            """)
        let lines = report.split(separator: "\n").map(String.init)
        #expect(
            lines == ["quiet stream ended: True", "quiet socket: closed", "reader still reading: True"], "\(report)")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    /// A client that comes back with the id of the last event it read gets the jobs that changed while it
    /// was away, at once; without an id (or with one that is not ours) it starts with nothing, as before.
    @Test(.timeLimit(.minutes(2))) func aStreamResumedWithLastEventIDReplaysWhatWasMissed() throws {
        let scratch = try Scratch("events-resume")
        let server = try ServerProcess()
        let media = try Fixtures.h264AacMP4()
        let first = scratch.file("first.events")
        let curl = try Self.follow(server.url("/events"), seconds: 60, output: first)
        defer { if curl.isRunning { kill(curl.processIdentifier, SIGKILL) } }
        let body = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        #expect(Self.eventually(10) { body(first).contains("retry:") })
        let seen = try #require(try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", media]).json["id"] as? String)
        #expect(
            Self.eventually(10) {
                Self.parse(body(first)).events.contains {
                    $0.data["id"] as? String == seen && $0.data["state"] as? String == "succeeded"
                }
            })
        kill(curl.processIdentifier, SIGKILL)
        curl.waitUntilExit()
        let lastID = try #require(Self.parse(body(first)).events.last?.id)

        let missed = try #require(try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", media]).json["id"] as? String)
        let resumed = Self.parse(
            try Curl.run(server.url("/events"), ["-N", "--max-time", "3", "-H", "Last-Event-ID: \(lastID)"]).text)
        #expect(
            resumed.events.contains {
                $0.data["id"] as? String == missed && $0.data["state"] as? String == "succeeded"
            },
            "\(resumed.events.map(\.data))")
        for header in [[], ["-H", "Last-Event-ID: not-an-id"]] {
            let fresh = Self.parse(try Curl.run(server.url("/events"), ["-N", "--max-time", "3"] + header).text)
            #expect(fresh.events.isEmpty, "\(header): \(fresh.events.map(\.data))")
        }
    }
}
