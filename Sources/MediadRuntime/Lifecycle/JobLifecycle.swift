import Foundation
import ServiceLifecycle

/// The job service's part of the group: in a shared store it runs the heartbeat until shutdown; on a
/// graceful shutdown it stops starting jobs, lets running ones finish for the grace period, and puts the
/// rest back in the queue for the next start (`JobService.drain`).
package struct JobLifecycle: Service {
    let jobs: JobService
    let grace: TimeInterval

    package init(jobs: JobService, grace: TimeInterval) {
        self.jobs = jobs
        self.grace = grace
    }

    package func run() async throws {
        if let replicas = jobs.replicas {
            await cancelWhenGracefulShutdown { await jobs.beat(replicas) }
        } else {
            try? await gracefulShutdown()
        }
        await jobs.drain(grace: grace)
    }
}
