import Foundation
import JobStore
import NIOPosix
import ServiceLifecycle

/// Deletes finished jobs older than `--retention`, and idempotency keys past their lifetime, every tenth
/// of the retention (between 1 s and a minute), until shutdown.
struct RetentionSweeper: Service {
    let jobs: JobService
    let store: JobStore
    let threadPool: NIOThreadPool
    let retention: TimeInterval

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await jobs.sweep(retention: retention)
                _ = try? await threadPool.runIfActive {
                    try store.sweepIdempotencyKeys(lifetime: IdempotencyKey.lifetime, now: Date())
                }
                try? await Task.sleep(for: .seconds(min(60, max(1, retention / 10))))
            }
        }
    }
}
