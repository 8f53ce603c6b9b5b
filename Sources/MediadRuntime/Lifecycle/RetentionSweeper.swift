import Foundation
import ServiceLifecycle

/// Deletes finished jobs older than `--retention`, and idempotency keys past their lifetime, every tenth
/// of the retention (between 1 s and a minute), until shutdown.
package struct RetentionSweeper: Service {
    let jobs: JobService
    let retention: TimeInterval
    /// How long an `Idempotency-Key` holds its job.
    let idempotencyLifetime: TimeInterval
    let period: Duration

    package init(jobs: JobService, retention: TimeInterval, idempotencyLifetime: TimeInterval) {
        self.jobs = jobs
        self.retention = retention
        self.idempotencyLifetime = idempotencyLifetime
        period = .seconds(min(60, max(1, retention / 10)))
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await jobs.sweep(retention: retention, idempotencyLifetime: idempotencyLifetime)
                try? await Task.sleep(for: period)
            }
        }
    }
}
