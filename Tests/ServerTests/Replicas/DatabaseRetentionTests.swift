import Foundation
import JobStore
import TestSupport
import Testing

/// Retention with `--database`: the replicas share one sweep through the database's advisory lock, and
/// remove the job directories no job in the database names.
@Suite(.serialized) struct DatabaseRetentionTests {
    /// Jobs past a short retention are deleted once (the replicas' logs count each once), their
    /// directories removed, and both replicas stop knowing them; the database keeps no row of them.
    @Test func expiredJobsAreDeletedOnceForEveryReplica() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-retention")
        let data = scratch.file("data")
        let movie = try Fixtures.h264AacMP4()
        // A directory no job names, unchanged for two hours (a publication whose answer never came and did
        // not land), and one as young as a job being published now: the first goes, the second stays.
        let (orphan, young) = (JobStore.newID(), JobStore.newID())
        for id in [orphan, young] {
            try FileManager.default.createDirectory(atPath: data + "/jobs/" + id, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: data + "/jobs/\(id)/job.json", contents: Data("{}".utf8))
        }
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: data + "/jobs/" + orphan)
        let logs = ["r1", "r2"].map { scratch.file("\($0).log") }
        let replicas = try zip(["r1", "r2"], logs).map { name, log in
            try ServerProcess(
                dataDirectory: data,
                [
                    "--database", postgres.url(database: "mediad"), "--replica-id", name, "--retention", "3s",
                    "--heartbeat", "0.5s", "--workers", "1",
                ], logFile: log)
        }
        defer { for replica in replicas { replica.stop() } }

        var ids: [String] = []
        for index in 0..<4 {
            let reply = try Curl.run(replicas[index % 2].url("/jobs/remux?format=mkv"), ["-T", movie])
            ids.append(try #require(reply.json["id"] as? String, "\(reply.text)"))
        }
        for id in ids {
            let ended = try DatabaseReplicaTests.job(replicas[0], id, wait: 120)
            #expect(ended["state"] as? String == "succeeded", "\(ended)")
        }

        let gone = try EventStreamTests.eventually(120) {
            try ids.allSatisfy { id in
                try replicas.allSatisfy { try Curl.run($0.url("/jobs/\(id)")).status == 404 }
                    && !FileManager.default.fileExists(atPath: data + "/jobs/" + id)
            }
        }
        #expect(gone, "every expired job is gone from both replicas and the data directory")
        #expect(!FileManager.default.fileExists(atPath: data + "/jobs/" + orphan), "an old orphan is removed")
        #expect(FileManager.default.fileExists(atPath: data + "/jobs/" + young), "a young one is not")
        #expect(
            try postgres.psql("SELECT count(*) FROM jobs", database: "mediad").trimmingCharacters(
                in: .whitespacesAndNewlines) == "0")
        let deleted = try logs.map { try Self.deletedCount(inLog: $0) }.reduce(0, +)
        #expect(deleted == ids.count, "each job deleted by exactly one sweep: \(deleted)")
    }

    /// The jobs the log's retention lines say were deleted, added up.
    static func deletedCount(inLog path: String) throws -> Int {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("deleted jobs past their retention") }
            .compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("jobs=") }.flatMap { Int($0.dropFirst(5)) }
            }
            .reduce(0, +)
    }
}
