import Foundation
import ServiceLifecycle

/// The job service's part of the group: it runs a shared store's heartbeat (`JobService.beat`, its
/// `ReplicaCoordination`'s) until shutdown; on a graceful shutdown it stops starting jobs, lets running
/// ones finish for the grace period, and puts the rest back in the queue for the next start
/// (`JobService.drain`).
package struct JobLifecycle: Service {
    let jobs: JobService
    let grace: TimeInterval

    package init(jobs: JobService, grace: TimeInterval) {
        self.jobs = jobs
        self.grace = grace
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await jobs.beat() }
        await jobs.drain(grace: grace)
    }
}
