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

    /// A stream holds its connection's place under `--max-connections`, and gives it back as soon as its
    /// client goes: the closed connection ends the stream without waiting for the next heartbeat.
    @Test(.timeLimit(.minutes(2))) func streamsCountAsConnectionsUntilTheirClientGoes() throws {
        let scratch = try Scratch("events-limit")
        let server = try ServerProcess(["--max-connections", "2"])
        let first = try Self.follow(server.url("/events"), seconds: 60, output: scratch.file("first"))
        let second = try Self.follow(server.url("/events"), seconds: 60, output: scratch.file("second"))
        defer { [first, second].filter(\.isRunning).forEach { kill($0.processIdentifier, SIGKILL) } }
        let started = { (name: String) in
            ((try? String(contentsOfFile: scratch.file(name), encoding: .utf8)) ?? "").contains("retry:")
        }
        #expect(Self.eventually(10) { started("first") && started("second") })
        #expect(try Curl.run(server.url("/healthz")).errorCode == "server_busy")
        // SIGKILL, a client that vanishes (curl started from the test runner ran on to --max-time on SIGTERM).
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(try Self.eventually(5) { try Curl.run(server.url("/healthz")).status == 200 })
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
