import Logging
import PostgresNIO

/// The payloads a `LISTEN` on one channel receives, as they come, until `stop`: a job's id on
/// `JobDatabase.queuedChannel`, a `JobChange` on `changedChannel`. It holds one of the pool's connections while it listens.
///
/// Notifications are not stored: one sent while nobody listens is lost, so a replica that starts listening
/// looks at the database once after `listen` returns. The stream ends with an error when the connection is
/// lost; listen again then.
public final class JobListener: Sendable {
    /// The payloads, in the order the database sent them.
    public let payloads: AsyncThrowingStream<String, any Error>
    private let task: Task<Void, Never>

    fileprivate init(payloads: AsyncThrowingStream<String, any Error>, task: Task<Void, Never>) {
        self.payloads = payloads
        self.task = task
    }

    /// Stops listening (`UNLISTEN`) and gives the connection back; the stream ends.
    public func stop() {
        task.cancel()
    }

    deinit { task.cancel() }
}

extension JobDatabase {
    /// Listens on `channel`; returns once the database has the `LISTEN`, so any notification sent after
    /// this returns reaches the listener.
    public func listen(_ channel: String) async throws -> JobListener {
        let (payloads, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let (started, starting) = AsyncStream<Result<Void, DatabaseError>>.makeStream()
        let task = Task { [client, logger] in
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        starting.yield(.success(()))
                        starting.finish()
                        for try await notification in notifications { continuation.yield(notification.payload) }
                    }
                }
                continuation.finish()
            } catch {
                let failure = DatabaseError.query(error, "listening on \(channel)")
                logger.debug("listening ended", metadata: ["channel": "\(channel)", "error": "\(failure)"])
                starting.yield(.failure(failure))
                starting.finish()
                continuation.finish(throwing: failure)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        let listener = JobListener(payloads: payloads, task: task)
        for await result in started { try result.get() }
        try Task.checkCancellation()
        return listener
    }
}
