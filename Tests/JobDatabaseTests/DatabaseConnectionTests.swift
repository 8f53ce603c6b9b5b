import Foundation
import JobDatabase
import Testing
import TestSupport

/// Opening the database: each way it can be unusable is one `DatabaseError` with its code, at once; the
/// schema is migrated once however many replicas start together, and a newer one is refused.
@Suite(.postgres, .timeLimit(.minutes(5))) struct DatabaseConnectionTests {
    /// Opens `url`'s database and returns the error it failed with.
    func failure(_ url: String) async throws -> DatabaseError {
        do {
            let database = try await JobDatabase.open(DatabaseSettings(url: url), logger: PostgresSuite.quiet)
            await database.close()
        } catch let error as DatabaseError {
            #expect(!error.message.contains(PostgresServer.password), "the message shows the password")
            #expect(!error.message.contains("\n"))
            return error
        }
        throw PostgresServer.Failure("\(url) opened")
    }

    @Test func nothingListeningIsUnreachable() async throws {
        let port = try PostgresServer.freePort()
        let error = try await failure("postgres://mediad:secret@127.0.0.1:\(port)/jobs?sslmode=disable")
        #expect(error.code == .connectionRefused)
        #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
    }

    @Test func wrongPasswordFailsAuthentication() async throws {
        let server = try PostgresSuite.current()
        let error = try await failure(server.url(database: "postgres", password: "wrong"))
        #expect(error.code == .authenticationFailed)
        #expect(error.message.contains("password authentication failed"), "\(error.message)")
    }

    @Test func noPasswordFailsAuthentication() async throws {
        let server = try PostgresSuite.current()
        let error = try await failure(
            "postgres://\(PostgresServer.user)@127.0.0.1:\(server.port)/postgres?sslmode=disable")
        #expect(error.code == .authenticationFailed)
    }

    @Test func missingDatabaseIsNamed() async throws {
        let server = try PostgresSuite.current()
        let error = try await failure(server.url(database: "no_such_database"))
        #expect(error.code == .databaseMissing)
        #expect(error.message.contains("no_such_database"), "\(error.message)")
    }

    @Test func requiredTLSThatTheServerLacksFails() async throws {
        let server = try PostgresSuite.current()
        let error = try await failure(server.url(database: "postgres", query: "sslmode=require"))
        #expect(error.code == .tlsFailed)
    }

    @Test func preferredTLSFallsBackToPlainConnections() async throws {
        let settings = try PostgresSuite.database("prefer")
        var preferring = settings
        preferring.sslMode = .prefer
        let database = try await JobDatabase.open(preferring, logger: PostgresSuite.quiet)
        #expect(try await database.queueDepth() == 0)
        await database.close()
    }

    @Test func replicasStartingTogetherMigrateOnce() async throws {
        let server = try PostgresSuite.current()
        let settings = try PostgresSuite.database("race")
        let migrations = try await withThrowingTaskGroup(of: SchemaMigration.self) { group in
            for _ in 0..<4 { group.addTask { try await DatabaseSchema.migrate(settings, logger: PostgresSuite.quiet) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(migrations.count == 4)
        #expect(migrations.filter { $0.from == 0 }.count == 1, "\(migrations)")
        #expect(migrations.allSatisfy { $0.to == DatabaseSchema.version })
        let versions = try server.psql("SELECT count(*), max(version) FROM mediad_schema", database: settings.database)
        #expect(versions == "\(DatabaseSchema.version)|\(DatabaseSchema.version)")
        let again = try await DatabaseSchema.migrate(settings, logger: PostgresSuite.quiet)
        #expect(again.from == DatabaseSchema.version && again.to == DatabaseSchema.version)
    }

    @Test func aNewerSchemaIsRefused() async throws {
        let server = try PostgresSuite.current()
        let settings = try PostgresSuite.database("newer")
        try await DatabaseSchema.migrate(settings, logger: PostgresSuite.quiet)
        let newer = DatabaseSchema.version + 1
        try server.psql("INSERT INTO mediad_schema (version) VALUES (\(newer))", database: settings.database)
        do {
            let database = try await JobDatabase.open(settings, logger: PostgresSuite.quiet)
            await database.close()
            Issue.record("a database at schema \(newer) opened")
        } catch let error as DatabaseError {
            #expect(error.code == .schemaTooNew)
            #expect(error.message.contains("version \(newer)"), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }
}
