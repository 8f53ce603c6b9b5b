import Foundation
import TestSupport
import Testing

/// `Idempotency-Key` on replicas with `--database`: the keys live in the database's `idempotency_keys`,
/// so a key used on one replica answers on every other, and racing requests on two replicas make one job.
extension DatabaseReplicaTests {
    static func count(_ postgres: PostgresServer, _ table: String) throws -> Int {
        Int(try postgres.psql("SELECT count(*) FROM \(table)", database: "mediad")) ?? -1
    }

    static func jobDirectories(_ data: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: data + "/jobs").filter { !$0.hasPrefix(".") })
    }

    static func submit(_ server: ServerProcess, format: String = "mkv", key: String, _ input: String) throws
        -> Curl.Reply
    {
        try Curl.run(server.url("/jobs/remux?format=\(format)"), ["-T", input, "-H", "Idempotency-Key: \(key)"])
    }

    /// A key used on one replica replays on the other, a different request with it is a conflict there,
    /// concurrent requests with one key on both replicas make one job, and a deleted job frees its key
    /// for both. Nothing of it is in the data directory.
    @Test func idempotencyKeysAreSharedThroughTheDatabase() async throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-idempotency")
        let data = scratch.file("data")
        let movie = try Fixtures.h264AacMP4()
        let (r1, r2) = (try Self.replica("r1", postgres, data: data), try Self.replica("r2", postgres, data: data))
        defer {
            r1.stop()
            r2.stop()
        }

        let first = try Self.submit(r1, key: "build-41", movie)
        #expect(first.status == 202, "\(first.text)")
        let id = try #require(first.json["id"] as? String, "\(first.text)")
        let again = try Self.submit(r2, key: "build-41", movie)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.json["id"] as? String == id, "\(again.text)")
        #expect(again.headers["idempotent-replayed"] == "true", "\(again.rawHeaders)")
        #expect(again.headers["location"] == "/jobs/\(id)", "\(again.rawHeaders)")
        let different = try Self.submit(r2, format: "mov", key: "build-41", movie)
        #expect(different.status == 409, "\(different.text)")
        #expect(different.errorCode == "idempotency_mismatch", "\(different.text)")

        let replicas = [r1, r2]
        let racing = try await withThrowingTaskGroup(of: Curl.Reply.self) { group in
            for index in 0..<8 { group.addTask { try Self.submit(replicas[index % 2], key: "race", movie) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let raced = Set(racing.compactMap { $0.json["id"] as? String })
        #expect(raced.count == 1, "\(racing.map(\.text))")
        #expect(racing.allSatisfy { [200, 202].contains($0.status) }, "\(racing.map(\.text))")
        #expect(racing.filter { $0.status == 202 }.count == 1, "\(racing.map(\.status))")
        let raceID = try #require(raced.first)

        // One job per key in the database and the data directory (the losers' directories removed), and
        // no key in the data directory.
        #expect(try Self.count(postgres, "jobs") == 2)
        #expect(try Self.count(postgres, "idempotency_keys") == 2)
        #expect(try Self.jobDirectories(data) == [id, raceID])
        #expect(!FileManager.default.fileExists(atPath: data + "/idempotency"))

        // Deleted on one replica, the job frees its key on the other.
        let ended = try Self.job(r2, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        #expect(try Curl.run(r2.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 204)
        let fresh = try Self.submit(r1, format: "mov", key: "build-41", movie)
        #expect(fresh.status == 202, "\(fresh.text)")
        #expect(fresh.json["id"] as? String != id, "\(fresh.text)")
    }

    /// A claim the database fails (an error raised by a trigger on `idempotency_keys`) refuses the
    /// submission with 503 `store_unavailable` and `Retry-After`, as a job that cannot be published is,
    /// and leaves no job behind; once the database takes claims again, the same key makes the job.
    @Test func aFailedIdempotencyClaimIsStoreUnavailable() throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-idempotency-fault")
        let data = scratch.file("data")
        let server = try Self.replica("r1", postgres, data: data)
        defer { server.stop() }
        let movie = try Fixtures.h264AacMP4()
        try postgres.psql(
            """
            CREATE FUNCTION refuse_keys() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'keys refused by the test'; END $$;
            CREATE TRIGGER refuse_keys BEFORE INSERT OR UPDATE ON idempotency_keys
            FOR EACH ROW EXECUTE FUNCTION refuse_keys();
            """, database: "mediad")

        let refused = try Self.submit(server, key: "k", movie)
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.errorCode == "store_unavailable", "\(refused.text)")
        #expect(refused.headers["retry-after"] != nil, "\(refused.rawHeaders)")
        #expect(try Self.count(postgres, "jobs") == 0)
        #expect(try Self.jobDirectories(data).isEmpty)

        try postgres.psql("DROP TRIGGER refuse_keys ON idempotency_keys", database: "mediad")
        let made = try Self.submit(server, key: "k", movie)
        #expect(made.status == 202, "\(made.text)")
        let replayed = try Self.submit(server, key: "k", movie)
        #expect(replayed.status == 200 && replayed.json["id"] as? String == made.json["id"] as? String)
    }
}
