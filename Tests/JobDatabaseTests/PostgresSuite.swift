import Foundation
import JobDatabase
import JobStore
import Logging
import MediaJobs
import Testing
import TestSupport

/// A suite's PostgreSQL server (`.postgres` on the suite): started before its first test, shared by its
/// tests, each of which makes a database of its own, and shut down after its last.
struct PostgresSuite: SuiteTrait, TestScoping {
    /// The server of the suite running now.
    @TaskLocal static var server: PostgresServer?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try PostgresServer()
        defer { server.shutdown() }
        try await Self.$server.withValue(server) { try await function() }
    }

    /// The suite's server; fails the test when it runs outside a `.postgres` suite.
    static func current() throws -> PostgresServer {
        try #require(server, "the suite has no .postgres trait")
    }

    /// A new, empty database on the suite's server and the settings to reach it as `PostgresServer.user`.
    static func database(_ label: String = "test") throws -> DatabaseSettings {
        let server = try current()
        let name = "\(label)_\(UUID().uuidString.prefix(8).lowercased())"
        try server.createDatabase(name)
        return try DatabaseSettings(url: server.url(database: name))
    }

    /// Runs `body` with a new database, migrated and open, and closes it after, whether `body` throws or not.
    static func withDatabase(_ label: String, _ body: (JobDatabase) async throws -> Void) async throws {
        let database = try await JobDatabase.open(database(label), logger: quiet)
        do {
            try await body(database)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// The next notification `listener` hears, or nil when none comes within a minute.
    static func next(_ listener: JobListener) async throws -> JobChange? {
        try await withThrowingTaskGroup(of: JobChange?.self) { group in
            group.addTask {
                for try await payload in listener.payloads { return JobChange(payload: payload) }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// A logger that says nothing: the tests read the database, not logs.
    static let quiet = Logger(label: "mediad.tests.database") { _ in SwiftLogNoOpLogHandler() }
}

extension Trait where Self == PostgresSuite {
    /// Runs the suite with a PostgreSQL server of its own.
    static var postgres: Self { PostgresSuite() }
}

/// Job records for the database's tests.
enum DatabaseFixtures {
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    /// A queued remux job (Matroska) created `offset` milliseconds after `epoch`.
    static func record(
        id: String = JobStore.newID(), offset milliseconds: Int = 0, state: JobState = .queued, owner: String? = nil
    ) -> JobRecord {
        var record = JobRecord(
            id: id, state: state, createdAt: epoch.addingTimeInterval(Double(milliseconds) / 1000),
            options: try! JobKind.remux.options(parsing: ["format": "mkv"]), inputs: [])
        record.owner = owner
        return record
    }

    /// Waits until `condition` holds, checking every 50 ms, for at most `seconds`: the database's state, not
    /// the time that passed, decides.
    static func eventually(
        within seconds: Double = 60, _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}
