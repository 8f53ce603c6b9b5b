import Foundation
import TestSupport
import Testing

/// Three `mediad serve --shared-store` replicas on one data directory, a few hundred jobs submitted with
/// curl round-robin, one replica SIGKILLed mid-way: every job ends exactly once, no two runs of a job
/// overlap, runs cut short by the kill are taken over (one more attempt), every output is valid.
@Suite(.serialized) struct SharedStoreTests {
    static let smallJobs = 210
    static let leaseTTL = 6.0

    static func replica(_ name: String, data: String) throws -> ServerProcess {
        try ServerProcess(
            dataDirectory: data,
            [
                "--shared-store", "--replica-id", name, "--lease-ttl", "\(Int(leaseTTL))s", "--heartbeat", "0.5s",
                "--isolation", "none", "--workers", "2", "--max-queued", "1000", "--egress-allow", "127.0.0.1",
                "--egress-idle-timeout", "2m",
            ])
    }

    /// Submits `file` as a job and returns its id.
    static func submit(_ server: ServerProcess, _ path: String, _ file: String) throws -> String {
        let reply = try Curl.run(server.url(path), ["-T", file])
        // 200 when the job already ended by the time the answer was written.
        #expect([200, 202].contains(reply.status), "\(path) on \(server.port): \(reply.status) \(reply.text)")
        return try #require(reply.json["id"] as? String, "\(reply.text)")
    }

    /// The files that ffmpeg cannot read to the end without an error (every packet demuxed, `-c copy` to
    /// the null muxer) or that ffprobe finds no stream and no duration in. Checked 50 files per ffmpeg
    /// process, since a process per file is most of the test's time on a loaded machine; a batch with an
    /// error is checked file by file to name the culprits. ffprobe looks at every tenth file.
    static func invalidMedia(_ files: [String]) throws -> [String] {
        func readsCleanly(_ batch: [String]) throws -> Bool {
            let arguments =
                ["-v", "error", "-nostdin"] + batch.flatMap { ["-i", $0] }
                + batch.indices.flatMap { ["-map", "\($0)"] }
                + ["-c", "copy", "-f", "null", "-"]
            let output = try Command.run("ffmpeg", arguments, allowFailure: true)
            return output.status == 0 && output.stderr.isEmpty
        }
        var invalid: [String] = []
        for start in stride(from: 0, to: files.count, by: 50) {
            let batch = Array(files[start..<min(start + 50, files.count)])
            if try !readsCleanly(batch) { invalid += try batch.filter { try !readsCleanly([$0]) } }
        }
        for file in files.enumerated().filter({ $0.offset % 10 == 0 }).map(\.element) {
            let probe = try Oracle.probe(file)
            let duration = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
            if duration <= 1 || (probe["streams"] as? [Any] ?? []).isEmpty { invalid.append(file) }
        }
        return invalid
    }

    /// Every job the server lists, by id, following the cursor.
    static func listing(_ server: ServerProcess) throws -> [String: [String: Any]] {
        var jobs: [String: [String: Any]] = [:]
        var cursor: String?
        repeat {
            let query = "/jobs?limit=100" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try Curl.run(server.url(query)).json
            for job in page["jobs"] as? [[String: Any]] ?? [] { jobs[job["id"] as? String ?? ""] = job }
            cursor = page["next_cursor"] as? String
        } while cursor != nil
        return jobs
    }

    @Test func threeReplicasOneKilledEveryJobEndsOnce() throws {
        let testStart = Date()
        let scratch = try Scratch("replicas")
        let data = scratch.file("data")
        let movie = try Fixtures.h264AacMP4()
        let tone = try Fixtures.wav()
        _ = try Self.longInput(in: scratch, seconds: 120)
        let slowPeer = try PeerProcess.script("file_server.py", [scratch.path])
        // Long jobs on r3, which is killed while they run there: encodes whose input comes by URL from a
        // peer that sends the first kilobyte, then nothing for a minute (the run of a replica that takes
        // one over gets all of it at once). r3 starts alone, so that it is the one that claims them: both
        // fetch at once (in two of its fetch slots, leaving its two workers to small jobs).
        let r3 = try Self.replica("r3", data: data)
        let longIDs = try (0..<2).map { index in
            let reply = try Curl.run(
                r3.url("/jobs/encode?format=m4a"),
                ["-X", "POST", "--url-query", "input_url=\(slowPeer.url)/slow-once/long-120.wav?job=\(index)"])
            #expect(reply.status == 202, "\(reply.text)")
            return try #require(reply.json["id"] as? String, "\(reply.text)")
        }
        func runningOnR3() throws -> Bool {
            try longIDs.contains { id in
                let job = try Curl.run(r3.url("/jobs/\(id)")).json
                return job["state"] as? String == "running" && job["replica"] as? String == "r3"
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while try !runningOnR3() && Date() < deadline { usleep(100_000) }
        try #require(try runningOnR3(), "r3, alone, runs none of the long jobs within 30 s")
        let servers = try ["r1", "r2"].map { try Self.replica($0, data: data) } + [r3]
        let started = Date()
        let setUp = started.timeIntervalSince(testStart)

        var ids = longIDs
        let kinds = ["/jobs/remux?format=mkv", "/jobs/remux?format=mp4&faststart=true", "/jobs/encode?format=m4a"]
        func submitSmall(_ index: Int, on live: [ServerProcess]) throws {
            let path = kinds[index % kinds.count]
            ids.append(try Self.submit(live[index % live.count], path, path.contains("encode") ? tone : movie))
        }
        for index in 0..<(Self.smallJobs * 2 / 3) { try submitSmall(index, on: servers) }

        try #require(try runningOnR3(), "a long job still runs on r3 when it is killed")
        let killedAt = Date()
        servers[2].stop(SIGKILL)
        // The long jobs r3 had not ended when it died, read from their records in the store (which only a
        // live replica writes): each must end on another replica. One r3 ended first is r3's.
        let cutByTheKill = try longIDs.filter { id in
            let record =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: data + "/jobs/\(id)/job.json"))) as? [String: Any]
            return !["succeeded", "failed", "cancelled"].contains(record?["state"] as? String ?? "")
        }
        #expect(!cutByTheKill.isEmpty, "a long job was running on r3 when it was killed")
        let live = Array(servers[0..<2])
        for index in (Self.smallJobs * 2 / 3)..<Self.smallJobs { try submitSmall(index, on: live) }

        // Long-poll a long job on a replica that did not take it: it ends after the takeover.
        let longEnd = try Curl.run(live[0].url("/jobs/\(longIDs[0])?wait=120")).json
        #expect(longEnd["state"] as? String == "succeeded", "\(longEnd)")

        var listed: [String: [String: Any]] = [:]
        while Date() < started.addingTimeInterval(170) {
            listed = try Self.listing(live[0])
            if ids.allSatisfy({ ["succeeded", "failed", "cancelled"].contains(listed[$0]?["state"] as? String ?? "") })
            {
                break
            }
            sleep(1)
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(Set(listed.keys) == Set(ids), "r1 lists every job, wherever it was created")
        #expect(Set(try Self.listing(live[1]).keys) == Set(ids), "r2 lists every job")

        let store = data + "/jobs/"
        var takenOver = 0
        var outputs: [String] = []
        for id in ids {
            let job = try #require(listed[id], "\(id) is not listed")
            #expect(job["state"] as? String == "succeeded", "\(id): \(job)")
            let runs = try RunLog.waitingForTheEnd(path: store + id + "/runs")
            let attempts = job["attempts"] as? Int ?? 0
            // A replica killed between writing a run's start and saving the record leaves one line more.
            let cutShort = runs.runs.contains { $0.replica == "r3" && $0.end == nil }
            #expect(
                runs.runs.count == attempts || (cutShort && runs.runs.count == attempts + 1),
                "\(id): \(attempts) attempts, runs \(runs.runs)")
            let recorded = (job["replica"] as? String).map { (replica: $0, attempt: attempts) }
            let problems = runs.problems(killed: "r3", killedAt: killedAt, recorded: recorded)
            #expect(problems.isEmpty, "\(id): \(problems)")
            #expect(runs.runs.last?.replica == job["replica"] as? String)
            if attempts > 1 { takenOver += 1 }
            let output = try #require((job["outputs"] as? [[String: Any]])?.first?["name"] as? String)
            outputs.append(store + id + "/outputs/" + output)
        }
        #expect(try Self.invalidMedia(outputs) == [], "not valid media per ffmpeg/ffprobe")
        #expect(takenOver >= 1, "a run cut short by the kill was taken over")
        for id in cutByTheKill { #expect(listed[id]?["replica"] as? String != "r3") }

        // Any replica serves any output.
        for id in ids.enumerated().filter({ $0.offset % 40 == 0 }).map(\.element) {
            let job = try #require(listed[id])
            let sha = (job["outputs"] as? [[String: Any]])?.first?["sha256"] as? String
            let download = try Command.run("sh", ["-c", "curl -sS \(live[1].url("/jobs/\(id)/output")) | sha256sum"])
            #expect(download.text.prefix(64) == sha?.prefix(64), "download of \(id) from r2")
        }
        print(
            "shared store: \(ids.count) jobs on 3 replicas (one killed), \(takenOver) taken over; set-up \(Int(setUp)) s, "
                + "all ended after \(Int(elapsed)) s, checks \(Int(Date().timeIntervalSince(started) - elapsed)) s")
    }

    /// Noise as a WAV file of `seconds`, for jobs that run long enough to be interrupted (half an hour
    /// encodes for well over ten seconds; ten minutes, about 6 s, once ended before a loaded run's kill).
    static func longInput(in scratch: Scratch, seconds: Int) throws -> String {
        let path = scratch.file("long-\(seconds).wav")
        try Command.run(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "anoisesrc=duration=\(seconds):sample_rate=48000", "-ac", "2", path])
        return path
    }

    /// The media check can fail: a truncated MP4 and a file of noise are named, a good file is not.
    @Test func mediaCheckFindsBrokenFiles() throws {
        let scratch = try Scratch("media-check")
        let good = try Fixtures.h264AacMP4()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let truncated = try scratch.write("truncated.mp4", Array(bytes.prefix(bytes.count / 2)))
        let noise = try scratch.write("noise.mkv", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        #expect(try Self.invalidMedia([good, truncated, good, noise]) == [truncated, noise])
    }

    /// A run taken over from a stalled replica ends `lost` when that replica learns of it, after the next
    /// run started: that is no overlap. The same times with the first run ending otherwise are one.
    @Test func runLogCheckTakesALostRunsEndAsTheTakeover() throws {
        let scratch = try Scratch("runs-lost")
        for (outcome, overlaps) in [("lost", false), ("failed", true)] {
            let lines = [
                "a 1 2026-01-01T00:00:00.000Z start", "b 2 2026-01-01T00:00:07.000Z start",
                "a 1 2026-01-01T00:00:07.400Z end \(outcome)", "b 2 2026-01-01T00:00:09.000Z end succeeded",
            ]
            let path = try scratch.write("runs-\(outcome)", Array((lines.joined(separator: "\n") + "\n").utf8))
            let problems = try RunLog(path: path).problems(killed: "none", killedAt: Date(timeIntervalSince1970: 0))
            #expect(problems.contains { $0.contains("overlaps") } == overlaps, "\(outcome): \(problems)")
        }
    }

    /// The run-log check can fail: overlapping runs, a second end, and a run left open by a replica that
    /// was not killed are each reported.
    @Test func runLogCheckFindsViolations() throws {
        let scratch = try Scratch("runs")
        let lines = [
            "a 1 2026-01-01T00:00:00.000Z start", "b 2 2026-01-01T00:00:05.000Z start",
            "a 1 2026-01-01T00:00:06.000Z end succeeded", "b 2 2026-01-01T00:00:07.000Z end succeeded",
            "c 3 2026-01-01T00:00:08.000Z start", "d 4 2026-01-01T00:00:09.000Z start",
        ]
        let path = try scratch.write("runs", Array((lines.joined(separator: "\n") + "\n").utf8))
        let problems = try RunLog(path: path).problems(killed: "d", killedAt: Date(timeIntervalSince1970: 0))
        #expect(problems.contains { $0.contains("overlaps") })
        #expect(problems.contains { $0.contains("after the end") })
        #expect(problems.contains { $0.contains("never ended") })
        #expect(problems.contains { $0.contains("not exactly one run") })
    }

    /// A run the killed replica left open ends the job only when the saved record says that run ended it
    /// (the replica died between saving the record and noting the end).
    @Test func runLogCheckCountsARecordSavedBeforeTheKill() throws {
        let scratch = try Scratch("runs-saved")
        let lines = [
            "a 1 2026-01-01T00:00:00.000Z start", "a 1 2026-01-01T00:00:01.000Z end requeued",
            "b 2 2026-01-01T00:00:02.000Z start",
        ]
        let path = try scratch.write("runs", Array((lines.joined(separator: "\n") + "\n").utf8))
        let killedAt = Date(timeIntervalSince1970: 1_767_225_600 + 9)
        let log = try RunLog(path: path)
        #expect(log.problems(killed: "b", killedAt: killedAt, recorded: (replica: "b", attempt: 2)).isEmpty)
        #expect(
            log.problems(killed: "b", killedAt: killedAt, recorded: (replica: "a", attempt: 1)).contains {
                $0.contains("not exactly one run")
            })
    }
}
