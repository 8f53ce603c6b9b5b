import Foundation
import JobDatabase
import JobStore
import Testing
import TestSupport

/// The harness's outage: `PostgresServer.stop` takes the suite's server down (a replica starting then is
/// told the database is unreachable, at once) and `start` brings it back on the same port with its data.
/// A suite of its own, since stopping the server would fail other suites' tests.
@Suite(.postgres, .timeLimit(.minutes(5))) struct DatabaseOutageTests {
    @Test func aStoppedServerIsUnreachableAndItsDataOutlivesTheOutage() async throws {
        let server = try PostgresSuite.current()
        let settings = try PostgresSuite.database("outage")
        let record = DatabaseFixtures.record()
        let before = try await JobDatabase.open(settings, logger: PostgresSuite.quiet)
        try await before.insert(record)
        await before.close()

        server.stop()
        do {
            let database = try await JobDatabase.open(settings, logger: PostgresSuite.quiet)
            await database.close()
            Issue.record("the database opened while its server was stopped")
        } catch let error as DatabaseError {
            #expect(error.code == .connectionRefused, "\(error)")
        }

        try server.start()
        let after = try await JobDatabase.open(settings, logger: PostgresSuite.quiet)
        #expect(try await after.load(record.id)?.record.id == record.id)
        await after.close()
    }
}
