import Foundation
import JobStore
import NIOPosix
import ServiceLifecycle

/// Deletes finished jobs older than `--retention`, and idempotency keys past their lifetime, every tenth
/// of the retention (between 1 s and a minute), until shutdown.
package struct RetentionSweeper: Service {
    let jobs: JobService
    let store: JobStore
    let threadPool: NIOThreadPool
    let retention: TimeInterval
    /// How long an `Idempotency-Key` holds its job.
    let idempotencyLifetime: TimeInterval

    package init(
        jobs: JobService, store: JobStore, threadPool: NIOThreadPool, retention: TimeInterval,
        idempotencyLifetime: TimeInterval
    ) {
        self.jobs = jobs
        self.store = store
        self.threadPool = threadPool
        self.retention = retention
        self.idempotencyLifetime = idempotencyLifetime
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await jobs.sweep(retention: retention)
                _ = try? await threadPool.runIfActive {
                    try store.sweepIdempotencyKeys(lifetime: idempotencyLifetime, now: Date())
                }
                try? await Task.sleep(for: .seconds(min(60, max(1, retention / 10))))
            }
        }
    }
}
