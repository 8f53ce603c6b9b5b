import Foundation
import TestSupport
import Testing

/// A job whose raw body is still arriving starts as soon as a worker is free: the worker reads the
/// growing input, waiting for bytes that have not arrived, and the job gives what it gives on the whole
/// file; a body that is cut fails the job with the upload's error and leaves no output.
@Suite(.serialized) struct ArrivingInputTests {
    /// A moov-at-end MP4 (ffmpeg's default layout: the worker must wait for the end to read its tracks).
    static func movieLast(_ scratch: Scratch) throws -> String {
        let path = scratch.file("last.mp4")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440", "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac",
                "-shortest", path,
            ])
        return path
    }

    /// A moov-first MP4 of about 2 MB (noisy pictures): past the server's 1 MiB write blocks, so the worker
    /// reads its first megabyte while the rest has not been sent.
    static func movieFirst(_ scratch: Scratch) throws -> String {
        let path = scratch.file("first.mp4")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25,noise=alls=30:allf=t", "-t", "5",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-movflags", "+faststart", path,
            ])
        return path
    }

    /// Sends `file` to `target` as a raw body: `fraction` of it, then waits (a minute at most) for the
    /// job to be in `state` with its input still arriving (and, with `progress`, to have read some of it),
    /// then does `then`: `finish` sends the rest and prints the response's first line, `cut` closes the
    /// connection, `trickle` sends the rest a kilobyte at a time and prints the worker's CPU ticks
    /// (utime + stime) and state before and after, the last byte still unsent. Prints the job first.
    static func send(
        _ server: ServerProcess, _ file: String, to target: String, fraction: Double = 0.8, progress: Bool = false,
        state: String = "running", then: String
    ) throws -> [String] {
        let script = """
            import json, socket, sys, time, urllib.request
            base = "http://127.0.0.1:\(server.port)"
            data = open("\(file)", "rb").read()
            split = int(len(data) * \(fraction))
            s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=120)
            s.sendall(b"POST \(target) HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(data))
            s.sendall(data[:split])
            job = None
            deadline = time.time() + 60
            while job is None and time.time() < deadline:
                for j in json.load(urllib.request.urlopen(base + "/jobs"))["jobs"]:
                    if j["state"] == "\(state)" and j.get("arriving_inputs") and (not \(progress ? "True" : "False") or j["progress"] > 0):
                        job = j
                if job is None:
                    time.sleep(0.05)
            print(json.dumps(job))
            sys.stdout.flush()
            if job is None:
                sys.exit(0)
            mode = "\(then)"
            if mode == "finish":
                s.sendall(data[split:])
                print(s.recv(4096).split(b"\\r\\n")[0].decode())
            elif mode == "cut":
                s.close()
            else:
                worker = None
                while worker is None and time.time() < deadline:
                    log = urllib.request.urlopen(base + "/jobs/" + job["id"] + "/log").read().decode()
                    lines = [l for l in log.splitlines() if "started in worker " in l]
                    if lines:
                        worker = lines[-1].split("started in worker ")[1].split(",")[0]
                    else:
                        time.sleep(0.05)
                def ticks():
                    fields = open("/proc/%s/stat" % worker).read().rsplit(")", 1)[1].split()
                    return fields[0], int(fields[11]) + int(fields[12])
                print(*ticks())
                rest = data[split:-1]
                for i in range(0, len(rest), 1024):
                    s.sendall(rest[i:i + 1024])
                    time.sleep(0.1)
                print(*ticks())
                s.sendall(data[-1:])
                print(s.recv(4096).split(b"\\r\\n")[0].decode())
            """
        return try Python.run(script).split(separator: "\n").map(String.init)
    }

    /// The job's record once it ended (a minute at most).
    static func ended(_ server: ServerProcess, _ id: String) throws -> [String: Any] {
        try Curl.run(server.url("/jobs/\(id)?wait=60")).json
    }

    /// The job named by the first line `send` printed, which must have been running with its input
    /// still arriving.
    static func arrivingJob(_ lines: [String]) throws -> String {
        let first = try #require(lines.first)
        let job = try #require(
            try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any],
            "the job never ran while its input arrived: \(lines)")
        #expect((job["inputs"] as? [Any])?.isEmpty == true)
        return try #require(job["id"] as? String)
    }

    /// The SHA-256 of the job's one input, as its record lists it.
    static func inputDigest(_ record: [String: Any]) -> String? {
        (record["inputs"] as? [[String: Any]])?.first?["sha256"] as? String
    }

    static func outputDigests(_ record: [String: Any]) -> [String: String] {
        let outputs = record["outputs"] as? [[String: Any]] ?? []
        return Dictionary(
            uniqueKeysWithValues: outputs.map { ($0["name"] as? String ?? "", $0["sha256"] as? String ?? "") })
    }

    @Test(arguments: [
        "/jobs/remux?format=mp4", "/jobs/remux?format=mkv", "/jobs/thumbnails?count=3",
        "/jobs/package?segment_duration=1",
    ])
    func aJobOnAGrowingInputGivesWhatItGivesOnTheWholeFile(_ target: String) throws {
        let scratch = try Scratch("arriving-same")
        let server = try ServerProcess()
        let input = try Self.movieLast(scratch)
        let whole = try Curl.run(server.url(target + "&wait=120"), ["-T", input]).json
        #expect(whole["state"] as? String == "succeeded", "\(whole)")

        let lines = try Self.send(server, input, to: target, then: "finish")
        let id = try Self.arrivingJob(lines)
        #expect(lines.dropFirst().first == "HTTP/1.1 202 Accepted", "\(lines)")
        let grown = try Self.ended(server, id)
        #expect(grown["state"] as? String == "succeeded", "\(grown)")
        #expect(grown["arriving_inputs"] == nil)
        #expect(Self.inputDigest(grown) != nil)
        #expect(Self.inputDigest(grown) == Self.inputDigest(whole))
        if target.contains("mkv") {
            // libav's Matroska muxer writes random UIDs: the packets are compared instead, the same in both
            // outputs, and the video's the same data as ffmpeg's copy of the input (the oracle).
            let listings = try [whole, grown].map { record in
                let id = record["id"] as? String ?? ""
                let output = scratch.file("\(id).mkv")
                try Command.run("curl", ["-sS", "-f", "-o", output, server.url("/jobs/\(id)/output")])
                return try Self.packets(output)
            }
            #expect(!listings[0].isEmpty)
            #expect(listings[0] == listings[1])
            // The video's packets: mediad and ffmpeg treat the AAC priming an edit list hides differently.
            let video = { (packets: [String]) in Self.hashes(packets).filter { $0.hasPrefix("0,") } }
            #expect(video(listings[0]).count > 50)
            #expect(video(listings[0]) == video(try Self.packets(input)))
        } else {
            #expect(!Self.outputDigests(grown).isEmpty)
            #expect(Self.outputDigests(grown) == Self.outputDigests(whole))
        }
    }

    /// Each packet of `file` as ffmpeg's framemd5 lists it (stream, times, size, MD5), in file order.
    static func packets(_ file: String) throws -> [String] {
        let listing = try Command.run(
            "ffmpeg", ["-v", "error", "-i", file, "-map", "0", "-c", "copy", "-f", "framemd5", "-"]
        ).text
        return listing.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The packets' streams and MD5s, sorted: the data, whatever the container's times and interleaving.
    static func hashes(_ packets: [String]) -> [String] {
        packets.map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return "\(fields.first ?? ""),\(fields.last ?? "")"
        }.sorted()
    }

    @Test func aWorkerReadsWhatHasArrivedBeforeTheRestIsSent() throws {
        let scratch = try Scratch("arriving-progress")
        let server = try ServerProcess()
        let input = try Self.movieFirst(scratch)
        let whole = try Curl.run(server.url("/jobs/remux?format=mp4&wait=120"), ["-T", input]).json
        let lines = try Self.send(server, input, to: "/jobs/remux?format=mp4", progress: true, then: "finish")
        let id = try Self.arrivingJob(lines)
        let grown = try Self.ended(server, id)
        #expect(grown["state"] as? String == "succeeded", "\(grown)")
        #expect(Self.outputDigests(grown) == Self.outputDigests(whole))
    }

    @Test func aCutUploadFailsItsJobAndLeavesNoOutput() throws {
        let scratch = try Scratch("arriving-cut")
        let server = try ServerProcess()
        let input = try Self.movieFirst(scratch)
        let lines = try Self.send(server, input, to: "/jobs/remux?format=mkv", then: "cut")
        let id = try Self.arrivingJob(lines)
        let record = try Self.ended(server, id)
        #expect(record["state"] as? String == "failed", "\(record)")
        #expect((record["error"] as? [String: Any])?["code"] as? String == "invalid_request", "\(record)")
        #expect((record["outputs"] as? [Any])?.isEmpty == true)
        let outputs = server.dataDirectory + "/jobs/\(id)/outputs"
        #expect(try FileManager.default.contentsOfDirectory(atPath: outputs).isEmpty)
    }

    @Test func aQueuedJobWhoseUploadIsCutFailsAtOnce() throws {
        let scratch = try Scratch("arriving-queued")
        let server = try ServerProcess(["--workers", "1"])
        let (held, worker) = try IsolationTests.heldWorker(
            server, ["-T", try IsolationTests.noisePCM(scratch, 1800)])
        let input = try Self.movieLast(scratch)
        let lines = try Self.send(server, input, to: "/jobs/remux?format=mp4", state: "queued", then: "cut")
        let id = try Self.arrivingJob(lines)
        let record = try Self.ended(server, id)
        #expect(record["state"] as? String == "failed", "\(record)")
        #expect((record["error"] as? [String: Any])?["code"] as? String == "invalid_request", "\(record)")
        #expect(record["started_at"] is NSNull, "the job ran: \(record)")
        #expect(try Curl.run(server.url("/jobs/\(held)"), ["-X", "DELETE"]).json["state"] as? String == "cancelled")
        #expect(kill(worker, 0) != 0, "the held worker is gone")
    }

    @Test func aWorkerWaitingForItsInputUsesNoCPU() throws {
        let scratch = try Scratch("arriving-cpu")
        let server = try ServerProcess()
        // 30 kB left to send at about 10 kB/s, the `moov` last: the worker waits on it for the whole time.
        let input = try Self.movieLast(scratch)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
        let lines = try Self.send(
            server, input, to: "/jobs/remux?format=mkv", fraction: 1 - 30_000 / Double(size), then: "trickle")
        let id = try Self.arrivingJob(lines)
        #expect(lines.count == 4, "\(lines)")
        let before = lines[1].split(separator: " "), after = lines[2].split(separator: " ")
        #expect(after.first == "S", "the worker was not asleep while it waited: \(lines)")
        let spent = (Int(after.last ?? "") ?? .max) - (Int(before.last ?? "") ?? 0)
        #expect(spent <= 30, "the worker used \(spent) ticks of CPU time while its input trickled in")
        #expect(lines[3] == "HTTP/1.1 202 Accepted", "\(lines)")
        #expect(try Self.ended(server, id)["state"] as? String == "succeeded")
    }
}
