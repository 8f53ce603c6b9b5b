import Logging
import NIOCore
import PostgresNIO

/// Single connections outside the pool: the first one, which tells a bad configuration apart (the pool would
/// retry it in the background and leave queries waiting) and migrates the schema.
enum DatabaseConnection {
    /// Connects to `settings`' database, or throws the `DatabaseError` that names why not. A server that
    /// accepts the connection and then says nothing counts as unreachable after twice the URL's
    /// `connect_timeout`: starting with a bad configuration ends, it never hangs.
    static func open(_ settings: DatabaseSettings, logger: Logger) async throws -> PostgresConnection {
        let configuration = try settings.connectionConfiguration()
        let limit = Duration.seconds(2 * settings.connectTimeout)
        return try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
            group.addTask {
                do {
                    return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                } catch {
                    throw DatabaseError.connecting(error, to: settings)
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let connection = first else {
                throw DatabaseError(
                    .connectionRefused,
                    "the database at \(settings) did not answer within \(2 * settings.connectTimeout) s")
            }
            return connection
        }
    }
}
