import Foundation
import JobStore
import Logging
import PostgresNIO

/// The jobs of replicas that share a PostgreSQL database: their records, the queue, leases, cancel requests
/// and runs, and the notifications that wake replicas (see docs/architecture.md, "JobDatabase").
///
/// `open` checks the settings with one connection of its own, so that a bad URL, a refused connection, a
/// failed login, a missing database or a schema newer than this build is one `DatabaseError` at once rather
/// than queries that wait; it migrates the schema on that connection, then runs a connection pool for the
/// queries until `close`.
///
/// Every time a lease is compared with is the database's clock (`now()`), never a replica's. A running
/// job's writes carry its lease (`JobLease`: holder and attempt, the attempt being the fencing token): a
/// holder that stalled past its lease and lost the job to another claim finds its writes refused.
/// Values are always bound parameters.
public final class JobDatabase: Sendable {
    /// Queued jobs, when one is queued (payload: its id): wakes idle replicas.
    public static let queuedChannel = "mediad_job_queued"
    /// Any change of a job's record, lease or cancel request (payload: a `JobChange`): wakes waiters and
    /// the holder. Progress alone notifies at most once a second per job.
    public static let changedChannel = "mediad_job_changed"
    /// The longest change notification that carries the job's row, in bytes; a longer one carries its id
    /// (PostgreSQL refuses payloads of 8000 bytes or more).
    static let largestNotification = 7900
    /// How many runs a job has before an expired lease fails it (`interrupted`), as `Recovery` counts them.
    public static let maxAttempts = 3

    public let settings: DatabaseSettings
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>

    private init(settings: DatabaseSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// Connects to `settings`' database, migrates its schema (under the advisory lock) and starts the
    /// connection pool. Throws a `DatabaseError` whose code names what is wrong.
    public static func open(_ settings: DatabaseSettings, logger: Logger) async throws -> JobDatabase {
        let migration = try await DatabaseSchema.migrate(settings, logger: logger)
        logger.info(
            "database ready",
            metadata: ["database": "\(settings)", "schema": "\(migration.to)", "migrated_from": "\(migration.from)"])
        return JobDatabase(settings: settings, logger: logger)
    }

    /// Stops the pool: queries under way end, later ones fail.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// How long one statement may take before the database counts as unreachable: a pool that cannot
    /// connect queues a statement rather than failing it.
    public static let statementDeadline: Duration = .seconds(5)

    /// `body`'s value, or `database_unreachable` when it takes longer than `deadline` (it is cancelled).
    public static func within<T: Sendable>(
        _ deadline: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: deadline)
                throw DatabaseError(.connectionRefused, "the database did not answer within \(deadline)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    // MARK: Helpers of the operations

    /// Runs `query`, its failure a `database_query_failed` that says `what` was being done.
    @discardableResult
    func run(_ query: PostgresQuery, _ what: String) async throws -> PostgresRowSequence {
        do {
            return try await client.query(query, logger: logger)
        } catch {
            throw DatabaseError.query(error, what)
        }
    }

    /// Collects the rows of `query` as `type`.
    func rows<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, _ what: String, as type: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        do {
            var collected: [(repeat each Column)] = []
            for try await row in try await client.query(query, logger: logger).decode(type) { collected.append(row) }
            return collected
        } catch {
            throw DatabaseError.query(error, what)
        }
    }

    /// A record as the `record` column holds it: the JSON of `JobJSON`, so dates read back as written.
    static func json(_ record: JobRecord) throws -> String {
        String(decoding: try JobJSON.encoder().encode(record), as: UTF8.self)
    }

    /// The record of the `record` column read as text.
    static func record(_ json: String) throws -> JobRecord {
        do {
            return try JobJSON.decoder().decode(JobRecord.self, from: Data(json.utf8))
        } catch {
            throw DatabaseError(.queryFailed, "a stored job record does not decode: \(error)")
        }
    }
}
