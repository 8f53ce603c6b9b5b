import Logging
import PostgresNIO

/// What `DatabaseSchema.migrate` found and did: the version the database was at and the one it is at now.
public struct SchemaMigration: Sendable, Equatable {
    public let from: Int
    public let to: Int
}

extension DatabaseSchema {
    /// Connects to `settings`' database and brings its schema to `version`, applying the missing migrations
    /// in order under an advisory lock. Throws `database_schema_too_new` for a database a newer mediad has
    /// migrated, and the connection's errors (`DatabaseError.connecting`) when the database cannot be used.
    @discardableResult
    public static func migrate(_ settings: DatabaseSettings, logger: Logger) async throws -> SchemaMigration {
        let connection = try await DatabaseConnection.open(settings, logger: logger)
        do {
            let migration = try await migrate(connection, logger: logger)
            try? await connection.close()
            return migration
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Applies the missing migrations on `connection`, holding the advisory lock while it reads the version
    /// and migrates, so that a second replica waits and then finds nothing left to do.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> SchemaMigration {
        do {
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
        } catch {
            throw DatabaseError.query(error, "taking the schema lock")
        }
        do {
            let migration = try await migrateLocked(connection, logger: logger)
            try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            return migration
        } catch {
            // The lock goes with the session: the caller closes the connection.
            throw DatabaseError.query(error, "migrating the schema")
        }
    }

    private static func migrateLocked(_ connection: PostgresConnection, logger: Logger) async throws
        -> SchemaMigration
    {
        try await connection.query(PostgresQuery(unsafeSQL: versionTable), logger: logger)
        let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM mediad_schema", logger: logger)
        var current = 0
        for try await found in rows.decode(Int.self) { current = found }
        guard current <= version else {
            throw DatabaseError(
                .schemaTooNew,
                "the database schema is version \(current), newer than this mediad knows (\(version)): "
                    + "run a mediad at least as new as the one that migrated it")
        }
        for next in stride(from: current + 1, through: version, by: 1) {
            try await connection.withTransaction(logger: logger) { transaction in
                for statement in migrations[next - 1] {
                    try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await transaction.query("INSERT INTO mediad_schema (version) VALUES (\(next))", logger: logger)
            }
            logger.info("database schema migrated", metadata: ["version": "\(next)"])
        }
        return SchemaMigration(from: current, to: max(current, version))
    }
}
