import Foundation
import TestSupport
import Testing

/// tus uploads of replicas that share a PostgreSQL database (`--database`): the record and committed offset
/// in the database, the bytes in the shared data directory, one writer across replicas.
@Suite(.serialized) struct DatabaseUploadTests {
    /// The committed offset the database holds for upload `id`, or "" when it has no row.
    static func committed(_ postgres: PostgresServer, _ id: String) throws -> String {
        try postgres.psql("SELECT committed_offset FROM uploads WHERE id = '\(id)'", database: "mediad")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Started with tuspy on one replica, its offset asked of the other, finished there with tuspy: the job
    /// it becomes runs, with the file's bytes, and its output is a Matroska file.
    @Test func anUploadStartedOnOneReplicaIsFinishedOnAnother() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-tus")
        let data = scratch.file("data")
        let first = try DatabaseReplicaTests.replica("r1", postgres, data: data)
        defer { first.stop() }
        let second = try DatabaseReplicaTests.replica("r2", postgres, data: data)
        defer { second.stop() }
        let input = try Fixtures.h264AacMP4()
        let metadata = Tuspy.metadata(["kind": "remux", "format": "mkv"])
        let started = try Tuspy.run(
            first,
            """
            uploader = client.TusClient(ENDPOINT).uploader("\(input)", chunk_size=32768, metadata=\(metadata))
            uploader.upload(stop_at=65536)
            result(path=uploader.url.split("/", 3)[3])
            """)
        let path = "/" + (try #require(started["path"] as? String))
        let id = String(path.split(separator: "/").last ?? "")
        #expect(try Self.committed(postgres, id) == "65536")
        #expect(
            !FileManager.default.fileExists(atPath: data + "/resumable/\(id)/upload.json"),
            "the record is in the database, not the data directory")
        let head = try Tus.head(second, path)
        #expect(head.status == 200)
        #expect(head.headers["upload-offset"] == "65536", "\(head.rawHeaders)")

        let finished = try Tuspy.resume(second, path, file: input)
        #expect(finished["start"] as? Int == 65536)
        let job = try ResumableUploadTests.finishedJob(first, try #require(finished["job"] as? String))
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(ResumableUploadTests.inputHashes(job) == [try ResumableUploadTests.sha256(input)])
        let jobID = try #require(job["id"] as? String)
        let output = try Curl.run(second.url("/jobs/\(jobID)/output"))
        let mkv = try scratch.write("out.mkv", Array(output.body))
        #expect(try Oracle.format(mkv)["format_name"] as? String == "matroska,webm")
        let size = try Data(contentsOf: URL(fileURLWithPath: input)).count
        let after = try Tus.head(first, path)
        #expect(after.headers["upload-offset"] == String(size))
        #expect(after.headers["mediad-job"] == "/jobs/\(jobID)")
    }

    /// 2 s of lossless 320x240 noise in MP4 (some MiB): a chunk of it spans several of the server's 1 MiB
    /// blocks, so half of one is on disk while the rest has not come.
    static func noiseMP4() throws -> String {
        try Fixtures.make(
            "noise.mp4",
            [
                "-f", "lavfi", "-i", "nullsrc=size=320x240:rate=25:duration=2,geq=lum='random(1)*255':cb=128:cr=128",
                "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mp4",
            ])
    }

    /// A replica killed in the middle of a `PATCH` leaves its writer lease: the other replica refuses to
    /// write (423) until it expires, then takes the upload over from the committed offset, dropping the
    /// bytes the dead one had written past it; the job made of it has the file's bytes.
    @Test func aKilledWritersUploadIsTakenOverFromTheCommittedOffset() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-tus-kill")
        let data = scratch.file("data")
        let first = try DatabaseReplicaTests.replica("r1", postgres, data: data)
        defer { first.stop(SIGKILL) }
        let second = try DatabaseReplicaTests.replica("r2", postgres, data: data)
        defer { second.stop() }
        let input = try Self.noiseMP4()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        let size = bytes.count
        let committed = 32768
        #expect(size > 3 << 20, "the rest of the upload spans several blocks")
        let created = try Tus.create(
            first, length: size, metadata: "kind \(Tus.base64("remux")),format \(Tus.base64("mkv"))")
        let location = try #require(created.headers["location"], "\(created.text)")
        let id = String(location.split(separator: "/").last ?? "")
        let head = try scratch.write("head.bin", Array(bytes.prefix(committed)))
        #expect(try Tus.patch(first, location, offset: 0, file: head).status == 204)

        // The rest announced, half of it sent, the connection held open.
        let rest = size - committed
        let sender = try PeerProcess(
            "python3",
            [
                "-c",
                """
                import socket, sys, time
                s = socket.create_connection(("127.0.0.1", \(first.port)), timeout=300)
                s.sendall(b"PATCH \(location) HTTP/1.1\\r\\nHost: test\\r\\nTus-Resumable: 1.0.0\\r\\n"
                          b"Upload-Offset: \(committed)\\r\\nContent-Type: application/offset+octet-stream\\r\\n"
                          b"Content-Length: \(rest)\\r\\n\\r\\n")
                s.sendall(open("\(input)", "rb").read()[\(committed):\(committed + rest / 2)])
                print(0, flush=True)
                time.sleep(300)
                """,
            ])
        defer { sender.stop() }
        let dataFile = data + "/resumable/\(id)/data"
        let written = EventStreamTests.eventually(60) {
            let size = (try? FileManager.default.attributesOfItem(atPath: dataFile)[.size] as? Int) ?? 0
            return size > committed + (1 << 20)
        }
        #expect(written, "r1 never wrote the chunk's first half")
        #expect(try Self.committed(postgres, id) == String(committed), "the unfinished chunk is not committed")
        #expect(try Tus.head(second, location).headers["upload-offset"] == String(committed))
        let tail = try scratch.write("tail.bin", Array(bytes.suffix(rest)))
        let locked = try Tus.patch(second, location, offset: committed, file: tail)
        #expect(locked.status == 423, "\(locked.text)")
        #expect(locked.errorCode == "upload_locked", "\(locked.text)")

        first.stop(SIGKILL)
        var reply = locked
        let takenOver = try EventStreamTests.eventually(60) {
            reply = try Tus.patch(second, location, offset: committed, file: tail)
            return reply.status != 423
        }
        #expect(takenOver, "r2 never took the upload over: \(reply.text)")
        #expect(reply.status == 204, "\(reply.text)")
        #expect(reply.headers["upload-offset"] == String(size), "\(reply.rawHeaders)")
        let job = try ResumableUploadTests.finishedJob(second, try #require(reply.headers["mediad-job"]))
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(ResumableUploadTests.inputHashes(job) == [try ResumableUploadTests.sha256(input)])
    }

    /// An upload without a kind, named by a job request on the other replica: a request refused for its
    /// options gives the upload back at once (the next request on either replica takes it), and the job
    /// made of it runs and removes the upload, record and bytes.
    @Test func anUploadIsTheInputOfAJobOnTheOtherReplica() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-tus-input")
        let data = scratch.file("data")
        let first = try DatabaseReplicaTests.replica("r1", postgres, data: data)
        defer { first.stop() }
        let second = try DatabaseReplicaTests.replica("r2", postgres, data: data)
        defer { second.stop() }
        let input = try Fixtures.h264AacMP4()
        let size = try Data(contentsOf: URL(fileURLWithPath: input)).count
        let created = try Tus.create(first, length: size)
        let location = try #require(created.headers["location"], "\(created.text)")
        let id = String(location.split(separator: "/").last ?? "")
        #expect(try Tus.patch(first, location, offset: 0, file: input).status == 204)

        let refused = try Curl.run(second.url("/jobs/remux?upload=\(id)&format=bogus"), ["-X", "POST"])
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.errorCode == "invalid_option", "\(refused.text)")
        let remux = try Curl.run(second.url("/jobs/remux?upload=\(id)&format=mkv&wait=60"), ["-X", "POST"])
        #expect(remux.json["state"] as? String == "succeeded", "\(remux.text)")
        #expect(ResumableUploadTests.inputHashes(remux.json) == [try ResumableUploadTests.sha256(input)])
        #expect(try Self.committed(postgres, id) == "", "the job took the upload: its row is gone")
        #expect(try Curl.run(first.url(location)).status == 404)
        #expect(!FileManager.default.fileExists(atPath: data + "/resumable/\(id)"))
    }

    /// Replicas with a 2 s upload expiry: an idle upload is swept (row, then directory), while one whose
    /// `PATCH` is under way (its writer lease renewed), older still, is left alone.
    @Test func theSweepRemovesIdleUploadsButNotOneBeingWritten() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-tus-sweep")
        let data = scratch.file("data")
        let replicas = try ["r1", "r2"].map {
            try ServerProcess(
                dataDirectory: data,
                [
                    "--database", postgres.url(database: "mediad"), "--replica-id", $0, "--lease-ttl",
                    "\(DatabaseReplicaTests.leaseTTL)s", "--heartbeat", "0.5s", "--upload-expiry", "2s",
                ])
        }
        defer { for replica in replicas { replica.stop() } }
        let busy = try #require(try Tus.create(replicas[0], length: 1 << 20).headers["location"])
        let busyID = String(busy.split(separator: "/").last ?? "")
        let sender = try PeerProcess(
            "python3",
            [
                "-c",
                """
                import socket, time
                s = socket.create_connection(("127.0.0.1", \(replicas[0].port)), timeout=300)
                s.sendall(b"PATCH \(busy) HTTP/1.1\\r\\nHost: test\\r\\nTus-Resumable: 1.0.0\\r\\nUpload-Offset: 0\\r\\n"
                          b"Content-Type: application/offset+octet-stream\\r\\nContent-Length: \(1 << 20)\\r\\n\\r\\n")
                s.sendall(bytes(1000))
                print(0, flush=True)
                time.sleep(300)
                """,
            ])
        defer { sender.stop() }
        let leased = try EventStreamTests.eventually(60) {
            try postgres.psql("SELECT writer FROM uploads WHERE id = '\(busyID)'", database: "mediad")
                .hasPrefix("r1/")
        }
        #expect(leased, "the PATCH never took the writer lease")
        let idle = try #require(try Tus.create(replicas[1], length: 1000).headers["location"])
        let idleID = String(idle.split(separator: "/").last ?? "")

        let swept = try EventStreamTests.eventually(60) {
            try Self.committed(postgres, idleID) == ""
                && !FileManager.default.fileExists(atPath: data + "/resumable/\(idleID)")
        }
        #expect(swept, "the idle upload was never swept")
        #expect(try Tus.head(replicas[0], idle).status == 404)
        #expect(try Self.committed(postgres, busyID) == "0", "the upload being written to stays")
        #expect(FileManager.default.fileExists(atPath: data + "/resumable/\(busyID)/data"))
    }

    /// With the database stopped, tus requests are 503 `store_unavailable` with `Retry-After`, not a 500 or
    /// a hang; with it back, the upload is there.
    @Test func tusRequestsWithoutTheDatabaseAreUnavailable() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-tus-outage")
        let server = try DatabaseReplicaTests.replica("r1", postgres, data: scratch.file("data"))
        defer { server.stop() }
        let created = try Tus.create(server, length: 1000)
        let location = try #require(created.headers["location"], "\(created.text)")

        postgres.stop()
        let head = try Tus.head(server, location)
        #expect(head.status == 503, "\(head.rawHeaders)")
        #expect(head.headers["retry-after"] != nil, "\(head.rawHeaders)")
        let refused = try Tus.create(server, length: 1000)
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.errorCode == "store_unavailable", "\(refused.text)")
        #expect(refused.headers["retry-after"] != nil, "\(refused.rawHeaders)")

        try postgres.start()
        let back = try EventStreamTests.eventually(60) { try Tus.head(server, location).status == 200 }
        #expect(back, "the upload is not served again once the database is back")
    }
}
