import Foundation
import TestSupport
import Testing

extension DatabaseClusterTests {
    /// The statement that ends a run (record, release and the run's end in `runs`) fails, as it would with
    /// the database stopped at that moment: nothing of it is written, and the replica tries it again, so the
    /// job keeps no holder and its run ends `succeeded` once the database takes it.
    @Test func aFailedReleaseIsTriedAgain() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-cluster-release")
        // A long TTL: the release is tried again for half of it, longer than the test takes to lift the fault.
        let server = try Self.workerReplica(postgres, data: scratch.file("data"), ttl: 60)
        defer { server.stop() }
        let (id, worker) = try IsolationTests.heldWorker(server, ["-T", try IsolationTests.noisePCM(scratch, 5)])
        defer { kill(worker, SIGCONT) }
        try Self.armFault(postgres, "BEFORE UPDATE OF ended_at ON runs FOR EACH ROW")
        func stored() throws -> String {
            try postgres.psql(
                "SELECT state || ' ' || coalesce(holder, 'none') FROM jobs WHERE id = '\(id)'", database: "mediad")
        }

        kill(worker, SIGCONT)
        try #require(try Self.faultHit(postgres), "the run's end was never attempted")
        #expect(try stored() == "running r1", "the record's end is written with the run's end, or not at all")
        try Self.disarmFault(postgres)

        let released = try EventStreamTests.eventually(60) {
            try DatabaseReplicaTests.runs(postgres, id) == ["1 r1 succeeded"]
        }
        let runs = try DatabaseReplicaTests.runs(postgres, id)
        #expect(released, "the run never ended: \(runs)")
        #expect(try stored() == "succeeded none", "the job keeps no holder")
        #expect(try DatabaseReplicaTests.job(server, id)["state"] as? String == "succeeded")
    }

    /// The end of a run whose record cannot be saved is not reported: the replica goes on answering the
    /// job as stored (`running`), and once its lease expires the job runs again and ends then.
    @Test func anUnsavedEndIsNotReported() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-cluster-unsaved")
        let log = scratch.file("r1.log")
        // The lease outlasts the test's look at the job and lifting the fault, so the next attempt's save works.
        let server = try Self.workerReplica(postgres, data: scratch.file("data"), ttl: 20, log: log)
        defer { server.stop() }
        let (id, worker) = try IsolationTests.heldWorker(server, ["-T", try IsolationTests.noisePCM(scratch, 5)])
        defer { kill(worker, SIGCONT) }
        try Self.armFault(postgres, "BEFORE UPDATE ON jobs FOR EACH ROW WHEN (NEW.state = 'succeeded')")

        kill(worker, SIGCONT)
        // The save is tried again for half the TTL, then given up.
        let gaveUp = EventStreamTests.eventually(120) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("recording the end of a job failed")
        }
        try #require(gaveUp, "the end's save never gave up")
        let reported = try DatabaseReplicaTests.job(server, id)
        #expect(reported["state"] as? String == "running", "an end that was not saved: \(reported)")
        try Self.disarmFault(postgres)

        let ended = try DatabaseReplicaTests.job(server, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded" && ended["attempts"] as? Int == 2, "\(ended)")
        #expect(try DatabaseReplicaTests.runs(postgres, id) == ["1 r1", "2 r1 succeeded"])
    }

    /// One replica, `r1`, with one job worker (a process, which a test can hold) and a lease of `ttl` seconds.
    static func workerReplica(_ postgres: PostgresServer, data: String, ttl: Int, log: String? = nil) throws
        -> ServerProcess
    {
        try ServerProcess(
            dataDirectory: data,
            [
                "--database", postgres.url(database: "mediad"), "--replica-id", "r1", "--lease-ttl", "\(ttl)s",
                "--heartbeat", "0.5s", "--workers", "1",
            ], logFile: log)
    }

    /// Makes the statements that fire `trigger` (`BEFORE … FOR EACH ROW [WHEN …]`) fail while
    /// `mediad_test_fault` has a row, each counting itself in a sequence (which the failed statement's
    /// rollback leaves counted).
    static func armFault(_ postgres: PostgresServer, _ trigger: String) throws {
        try postgres.psql(
            """
            CREATE SEQUENCE mediad_test_fault_hits;
            CREATE TABLE mediad_test_fault (armed boolean);
            INSERT INTO mediad_test_fault VALUES (true);
            CREATE FUNCTION mediad_test_fault() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM mediad_test_fault) THEN
                    PERFORM nextval('mediad_test_fault_hits');
                    RAISE EXCEPTION 'injected by the test';
                END IF;
                RETURN NEW;
            END
            $$;
            CREATE TRIGGER mediad_test_fault \(trigger) EXECUTE FUNCTION mediad_test_fault();
            """, database: "mediad")
    }

    /// Whether a statement failed for the fault (waiting up to two minutes for one).
    static func faultHit(_ postgres: PostgresServer) throws -> Bool {
        try EventStreamTests.eventually(120) {
            try postgres.psql("SELECT is_called FROM mediad_test_fault_hits", database: "mediad") == "t"
        }
    }

    /// Lifts the fault: the statements it refused succeed again.
    static func disarmFault(_ postgres: PostgresServer) throws {
        try postgres.psql("DELETE FROM mediad_test_fault", database: "mediad")
    }
}
