import Foundation
import TestSupport
import Testing

/// tus uploads with `--objects` and `--database`: the bytes go into one multipart upload of the bucket as
/// they arrive, the parts and the tail under a part recorded in the database, so an upload resumes on a
/// replica with its own data directory, its SHA-256 right though its chunks landed on two replicas.
@Suite(.serialized) struct ObjectTusTests {
    static let mebibyte = 1 << 20

    /// Two replicas of one database and one bucket, each with its own data directory.
    struct Cluster {
        let postgres: PostgresServer
        let s3: SeaweedFS
        let scratch: Scratch
        let prefix: String

        init(_ name: String) throws {
            postgres = try DatabaseReplicaTests.database()
            s3 = try SeaweedFS()
            scratch = try Scratch("objects-tus-\(name)")
            prefix = name
        }

        func replica(_ name: String) throws -> ServerProcess {
            try ServerProcess(
                dataDirectory: scratch.file("data-\(name)"),
                [
                    "--database", postgres.url(database: "mediad"), "--replica-id", name, "--workers", "1",
                    "--lease-ttl", "6s", "--heartbeat", "0.5s",
                ] + ObjectStorageServeTests.objectFlags(s3, prefix: prefix),
                environment: SeaweedFS.credentialsEnvironment)
        }

        /// A column of upload `id`'s row (or of a query on it), as psql prints it.
        func sql(_ query: String) throws -> String {
            try postgres.psql(query, database: "mediad").trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Bytes `range` of `file` written to a file of their own, for a `PATCH` to send.
    static func slice(_ file: String, _ range: Range<Int>, _ scratch: Scratch, _ name: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        return try scratch.write(name, Array(bytes[range]))
    }

    /// 3 MiB, then 7 MiB, to replica A (a part of 8 MiB stored, 2 MiB of tail in the database); A is killed;
    /// B, with its own data directory, answers the offset, refuses a wrong one (409), and takes the rest
    /// from tuspy. The job runs, its input's SHA-256 is the file's, its output is the Matroska remux
    /// ffprobe reads, and the bucket holds the job's objects and no multipart upload.
    @Test func anUploadStartedOnReplicaAIsFinishedOnReplicaB() throws {
        let cluster = try Cluster("resume")
        defer { cluster.postgres.shutdown() }
        let (s3, scratch) = (cluster.s3, cluster.scratch)
        let a = try cluster.replica("a")
        defer { a.stop(SIGKILL) }
        let b = try cluster.replica("b")
        defer { b.stop() }
        let input = try ObjectInputsTests.largeMP4()
        let size = try Data(contentsOf: URL(fileURLWithPath: input)).count
        #expect(size > 16 * Self.mebibyte + 1, "three parts: \(size) bytes")

        let created = try Tus.create(
            a, length: size, metadata: "kind \(Tus.base64("remux")),format \(Tus.base64("mkv"))")
        #expect(created.status == 201, "\(created.text)")
        let location = try #require(created.headers["location"], "\(created.rawHeaders)")
        let id = String(location.split(separator: "/").last ?? "")
        for (start, end) in [(0, 3 * Self.mebibyte), (3 * Self.mebibyte, 10 * Self.mebibyte)] {
            let chunk = try Self.slice(input, start..<end, scratch, "chunk-\(start)")
            let patched = try Tus.patch(a, location, offset: start, file: chunk)
            #expect(patched.status == 204, "\(patched.text)")
            #expect(patched.headers["upload-offset"] == String(end), "\(patched.rawHeaders)")
        }
        #expect(
            try cluster.sql("SELECT committed_offset FROM uploads WHERE id = '\(id)'") == String(10 * Self.mebibyte))
        #expect(
            try cluster.sql("SELECT number || ' ' || size FROM upload_parts WHERE upload_id = '\(id)'") == "1 8388608")
        #expect(try cluster.sql("SELECT length(tail) FROM uploads WHERE id = '\(id)'") == String(2 * Self.mebibyte))
        let during = try s3.list("\(cluster.prefix)/")
        #expect(during.uploads.count == 1 && during.objects.isEmpty, "one multipart upload, no object: \(during)")
        _ = a.stop(SIGKILL)

        let head = try Tus.head(b, location)
        #expect(head.headers["upload-offset"] == String(10 * Self.mebibyte), "\(head.rawHeaders)")
        let wrong = try Tus.patch(
            b, location, offset: 3 * Self.mebibyte, file: try Self.slice(input, 0..<1024, scratch, "wrong"))
        #expect(wrong.status == 409, "\(wrong.text)")
        #expect(wrong.errorCode == "offset_mismatch", "\(wrong.text)")

        let finished = try Tuspy.run(
            b,
            """
            uploader = client.TusClient(ENDPOINT).uploader("\(input)", url="\(b.url(location))", chunk_size=\(3 * Self.mebibyte))
            start = uploader.offset
            uploader.upload()
            result(start=start, job=uploader.request.response_headers.get("mediad-job"))
            """)
        #expect(finished["start"] as? Int == 10 * Self.mebibyte)
        let jobPath = try #require(finished["job"] as? String, "\(finished)")
        let job = try ResumableUploadTests.finishedJob(b, jobPath)
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let sha256 = try ObjectStorageServeTests.sha256(input)
        #expect(ResumableUploadTests.inputHashes(job) == [sha256])
        let jobID = try #require(job["id"] as? String)
        #expect(try s3.read("\(cluster.prefix)/jobs/\(jobID)/inputs/input")["sha256"] as? String == sha256)

        let output = try Curl.run(b.url("/jobs/\(jobID)/output"), ["-L"])
        let mkv = try scratch.write("out.mkv", Array(output.body))
        #expect(try Oracle.format(mkv)["format_name"] as? String == "matroska,webm")
        let oracle = scratch.file("oracle.mkv")
        _ = try Command.run(
            "ffmpeg", ["-v", "error", "-i", input, "-map", "0", "-c", "copy", "-f", "matroska", oracle])
        #expect(
            try Command.run("ffmpeg", ["-v", "error", "-i", mkv, "-map", "0:v", "-f", "framemd5", "-"]).text
                == (try Command.run("ffmpeg", ["-v", "error", "-i", oracle, "-map", "0:v", "-f", "framemd5", "-"]).text),
            "the remux's video packets are ffmpeg's")
        let after = try s3.list("\(cluster.prefix)/")
        #expect(after.uploads.isEmpty, "no multipart upload is left: \(after)")
        #expect(after.objects.allSatisfy { $0.hasPrefix("\(cluster.prefix)/jobs/\(jobID)/") }, "\(after)")
        #expect(try cluster.sql("SELECT count(*) FROM upload_parts") == "3", "the three parts were recorded")
    }

    /// An upload terminated with one part and a tail stored leaves neither object nor multipart upload, nor
    /// a row; an upload without a kind, named by `upload=` once complete, is copied to its job's input and
    /// its own object removed with it.
    @Test func aTerminatedUploadLeavesNothingAndAnUploadWithoutAKindBecomesAJobsInput() throws {
        let cluster = try Cluster("ends")
        defer { cluster.postgres.shutdown() }
        let (s3, scratch) = (cluster.s3, cluster.scratch)
        let server = try cluster.replica("a")
        defer { server.stop() }
        let input = try ObjectInputsTests.largeMP4()
        let size = try Data(contentsOf: URL(fileURLWithPath: input)).count

        let doomed = try #require(try Tus.create(server, length: size).headers["location"])
        let chunk = try Self.slice(input, 0..<(9 * Self.mebibyte), scratch, "first")
        #expect(try Tus.patch(server, doomed, offset: 0, file: chunk).status == 204)
        #expect(try s3.list("\(cluster.prefix)/").uploads.count == 1)
        let deleted = try Curl.run(server.url(doomed), ["-X", "DELETE"] + Tus.version)
        #expect(deleted.status == 204, "\(deleted.text)")
        let gone = try s3.list("\(cluster.prefix)/")
        #expect(gone.uploads.isEmpty && gone.objects.isEmpty, "the terminated upload left \(gone)")
        #expect(try cluster.sql("SELECT count(*) FROM uploads") == "0")
        #expect(try cluster.sql("SELECT count(*) FROM upload_parts") == "0")

        let kept = try #require(try Tus.create(server, length: size).headers["location"])
        let whole = try Tus.patch(server, kept, offset: 0, file: input)
        #expect(whole.status == 204, "\(whole.text)")
        let uploadID = String(kept.split(separator: "/").last ?? "")
        #expect(try s3.list("\(cluster.prefix)/uploads/").objects == ["\(cluster.prefix)/uploads/\(uploadID)"])
        let reply = try Curl.run(server.url("/jobs/remux?format=mkv&upload=\(uploadID)"), ["-X", "POST"])
        let jobID = try #require(reply.json["id"] as? String, "\(reply.text)")
        let job = try DatabaseReplicaTests.job(server, jobID, wait: 120)
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(ResumableUploadTests.inputHashes(job) == [try ObjectStorageServeTests.sha256(input)])
        let after = try s3.list("\(cluster.prefix)/")
        #expect(after.uploads.isEmpty, "\(after)")
        #expect(after.objects.allSatisfy { $0.hasPrefix("\(cluster.prefix)/jobs/\(jobID)/") }, "\(after)")
    }
}
