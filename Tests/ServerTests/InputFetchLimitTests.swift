import Foundation
import TestSupport
import Testing

/// What a URL input's fetch may hold and for how long: it runs in a fetch slot (`--max-fetches`), never in
/// a worker, so that upstreams trickling their inputs cannot keep jobs with their inputs at hand from
/// running; it must end within `--input-timeout` and keep up `--min-upload-rate`, or the job fails with
/// `input_timeout` or `input_too_slow` and leaves no partial input; and its time is taken off the job's.
@Suite(.serialized) struct InputFetchLimitTests {
    let urls = InputURLTests()

    /// The job once `isDone` holds for it, polled until then for at most 60 s.
    func job(_ server: ServerProcess, _ id: String, until isDone: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(60)
        var job = try Curl.run(server.url("/jobs/\(id)")).json
        while !isDone(job) && Date() < deadline {
            usleep(50_000)
            job = try Curl.run(server.url("/jobs/\(id)")).json
        }
        return job
    }

    /// Whether the job is `running` with its input source in `state`.
    func isRunning(_ job: [String: Any], source state: String) -> Bool {
        job["state"] as? String == "running" && urls.source(job)["state"] as? String == state
    }

    /// No partial input is left: neither in the store's uploads nor in the job's inputs.
    func expectNoInput(_ server: ServerProcess, _ id: String) throws {
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads") == [])
        let inputs = server.dataDirectory + "/jobs/\(id)/inputs"
        #expect((try? FileManager.default.contentsOfDirectory(atPath: inputs)) ?? [] == [])
    }

    @Test func aTricklingInputFailsAtItsDeadline() throws {
        let files = try InputURLTests.Files()
        let server = try ServerProcess(
            ["--egress-allow", "127.0.0.1", "--input-timeout", "2s", "--min-upload-rate", "0"])
        let id = try #require(try urls.submit(server, files.url("/trickle")).json["id"] as? String)
        let job = try urls.ended(server, id)
        #expect(job["state"] as? String == "failed", "\(job)")
        #expect(urls.errorCode(job) == "input_timeout", "\(job)")
        let message = (job["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("within the 2 s a job's URL inputs may take (--input-timeout)"), "\(message)")
        #expect(urls.source(job)["state"] as? String == "failed")
        #expect(urls.source(job)["status"] as? Int == 200)
        try expectNoInput(server, id)
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("fetching input input from \(files.url("/trickle")) failed: "), "\(log)")
        #expect(log.contains("--input-timeout"), "\(log)")
    }

    @Test func aTricklingInputFailsUnderTheMinimumRate() throws {
        let files = try InputURLTests.Files()
        // The default rate, 1K a second over each 10 s of waiting on the upstream.
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let id = try #require(try urls.submit(server, files.url("/trickle")).json["id"] as? String)
        let job = try urls.ended(server, id)
        #expect(job["state"] as? String == "failed", "\(job)")
        #expect(urls.errorCode(job) == "input_too_slow", "\(job)")
        let message = (job["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("under the minimum of 1024 bytes a second (--min-upload-rate)"), "\(message)")
        try expectNoInput(server, id)
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("failed: ") && log.contains("--min-upload-rate"), "\(log)")
    }

    /// Two upstreams trickling on a server of two workers: a job with its input at hand runs and succeeds
    /// while both fetches go on; a third URL job past `--max-fetches` waits in the queue, and starts
    /// fetching when a fetch slot frees. The same with leases, on a replica of a shared store.
    @Test(arguments: [[], ["--shared-store", "--heartbeat", "0.5s"]])
    func fetchesHoldNoWorker(_ mode: [String]) throws {
        let files = try InputURLTests.Files()
        let server = try ServerProcess(
            ["--egress-allow", "127.0.0.1", "--workers", "2", "--max-fetches", "2", "--min-upload-rate", "0"] + mode)
        let trickling = try (0..<3).map { _ in
            try #require(try urls.submit(server, files.url("/trickle")).json["id"] as? String)
        }
        for id in trickling[0..<2] {
            let job = try job(server, id) { isRunning($0, source: "fetching") }
            #expect(isRunning(job, source: "fetching"), "\(job)")
        }
        let plain = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", files.mp4]).json
        #expect(plain["state"] as? String == "succeeded", "\(plain)")
        for id in trickling[0..<2] {
            let job = try Curl.run(server.url("/jobs/\(id)")).json
            #expect(isRunning(job, source: "fetching"), "\(job)")
        }
        let third = try Curl.run(server.url("/jobs/\(trickling[2])")).json
        #expect(third["state"] as? String == "queued", "\(third)")
        #expect(urls.source(third)["state"] as? String == "pending", "\(third)")

        let cancelled = try Curl.run(server.url("/jobs/\(trickling[0])"), ["-X", "DELETE"]).json
        #expect(cancelled["state"] as? String == "cancelled", "\(cancelled)")
        let started = try job(server, trickling[2]) { isRunning($0, source: "fetching") }
        #expect(isRunning(started, source: "fetching"), "\(started)")
    }

    /// With the only worker held, a URL job fetches its input and then waits for a worker, `running` with
    /// its input `fetched`, and a job queued after it waits behind it; cancelling a waiting job ends it at
    /// once. When the worker frees, the fetched job runs, and the queued one after it.
    @Test func aFetchedJobWaitsForAWorkerAheadOfTheQueue() throws {
        let files = try InputURLTests.Files()
        let scratch = try Scratch("fetch-waits")
        let server = try ServerProcess(["--egress-allow", "127.0.0.1", "--workers", "1"])
        let (held, _) = try IsolationTests.heldWorker(server, ["-T", try IsolationTests.noisePCM(scratch, 1800)])
        let fetched = try (0..<2).map { _ in
            try #require(try urls.submit(server, files.url("/talk.mp4")).json["id"] as? String)
        }
        for id in fetched {
            let job = try job(server, id) { isRunning($0, source: "fetched") }
            #expect(isRunning(job, source: "fetched"), "\(job)")
            #expect(job["progress"] as? Double == 0, "\(job)")
        }
        let plain = try #require(
            try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", files.mp4]).json["id"] as? String)
        #expect(try Curl.run(server.url("/jobs/\(plain)")).json["state"] as? String == "queued")

        let cancelled = try Curl.run(server.url("/jobs/\(fetched[1])"), ["-X", "DELETE"]).json
        #expect(cancelled["state"] as? String == "cancelled", "\(cancelled)")
        #expect(try Curl.run(server.url("/jobs/\(held)"), ["-X", "DELETE"]).json["state"] as? String == "cancelled")
        let first = try urls.ended(server, fetched[0])
        let second = try urls.ended(server, plain)
        #expect(first["state"] as? String == "succeeded", "\(first)")
        #expect(second["state"] as? String == "succeeded", "\(second)")
        // One worker: the queued job started only once the fetched one had ended (same-width RFC 3339 times).
        let firstEnd = try #require(first["finished_at"] as? String)
        let secondStart = try #require(second["started_at"] as? String)
        #expect(firstEnd <= secondStart, "\(firstEnd) \(secondStart)")
    }

    /// The fetch is part of the job: the time it took comes off the job's time limit, as the log's
    /// `timeout` shows (the peer pauses 3 s mid-body).
    @Test func theFetchCountsAgainstTheJobsTimeLimit() throws {
        let files = try InputURLTests.Files()
        let server = try ServerProcess(
            ["--egress-allow", "127.0.0.1", "--job-timeout-floor", "30s", "--job-timeout-ceiling", "10m"])
        let id = try #require(try urls.submit(server, files.url("/pause/talk.mp4")).json["id"] as? String)
        let job = try urls.ended(server, id)
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: files.mp4)[.size] as? Int)
        let full = 30 + size / 16000
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        let timeout = log.components(separatedBy: "(timeout ").dropFirst().first?.prefix { $0.isNumber }
        let seconds = try #require(timeout.flatMap { Int($0) }, "\(log)")
        #expect(seconds < full - 2, "a \(size)-byte input gets \(full) s; after a fetch of 3 s or more: \(seconds) s")
        #expect(seconds >= 30, "never less than the floor: \(seconds) s")
    }
}
