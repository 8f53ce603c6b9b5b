import Foundation
import JobStore
import MediadClient
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// PUTs a succeeded job's outputs to their URLs (`output_url`, `output_urls`: presigned object-store URLs
/// and the like), then hands the job to the webhooks, so a callback tells whether delivery did.
///
/// Each output is streamed from disk with `Content-Length` and `Content-Type`, through the egress policy
/// (host resolved once and connected to by address). 5xx, 408 and 429 answers and network failures are
/// retried with exponential backoff, up to `maxAttempts`; another answer, a refused address or a missing
/// output ends the delivery as `failed`. Every change is saved in the job's `deliveries` through
/// `JobService`, the only writer of `job.json`. The job stays `succeeded` whatever happens.
///
/// Deliveries are child tasks of `run`, a service of the group: a shutdown cancels those under way (they
/// stay `delivering`), and `resume` at the next start does every delivery not yet final again from its
/// start — a PUT replaces the object, so doing one again is safe — before the webhook fires. With
/// `--database`, each attempt is made only while this replica holds the job's delivery lease; when it dies,
/// another replica takes them over and goes on from the attempts recorded.
package final class OutputDeliverer: Service, Sendable {
    /// PUTs a delivery makes at most.
    package static let maxAttempts = 5

    let policy: EgressPolicy
    let client: HTTPClient
    private let jobs: JobService
    private let notifier: WebhookNotifier
    /// The delay before the second attempt; doubled for each further one.
    private let retryBase: TimeInterval
    /// Jobs whose deliveries are under way, so a job is not delivered twice at once.
    private let active = Mutex<Set<String>>([])
    private let (pending, queue) = AsyncStream.makeStream(of: JobRecord.self)

    private init(policy: EgressPolicy, jobs: JobService, notifier: WebhookNotifier, retryBase: TimeInterval) throws {
        self.policy = policy
        self.jobs = jobs
        self.notifier = notifier
        self.retryBase = retryBase
        client = try HTTPClient(tls: policy.tls)
    }

    /// A deliverer that hears of every job `jobs` ends, and tells `notifier` once a job's deliveries end.
    package static func attach(
        to jobs: JobService, policy: EgressPolicy, notifier: WebhookNotifier, retryBase: TimeInterval = 1
    ) async throws -> OutputDeliverer {
        let deliverer = try OutputDeliverer(policy: policy, jobs: jobs, notifier: notifier, retryBase: retryBase)
        await jobs.onJobEnd { deliverer.jobEnded($0) }
        return deliverer
    }

    /// Resumes, for the jobs loaded from the store, the deliveries a restart cut off, and the webhooks.
    package func resume() async {
        for record in await jobs.endedJobsToNotify() { jobEnded(record) }
    }

    /// Starts delivering the outputs of a job that just ended; a job with nothing (left) to deliver goes
    /// to the webhooks at once.
    package func jobEnded(_ job: JobRecord) {
        guard let deliveries = job.deliveries, deliveries.contains(where: { !$0.state.isFinal }) else {
            notifier.deliver(job)
            return
        }
        guard active.withLock({ $0.insert(job.id).inserted }) else { return }
        queue.yield(job)
    }

    /// Delivers what `jobEnded` queues, each job in a child task, until a graceful shutdown cancels them.
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for await job in self.pending {
                    group.addTask {
                        let ended = await self.deliverAll(job)
                        _ = self.active.withLock { $0.remove(job.id) }
                        if let ended { self.notifier.deliver(ended, windowFrom: Date()) }
                    }
                }
            }
        }
    }

    /// Delivers every output of `job` not delivered yet, one after another; the record once all are final,
    /// nil when a shutdown cut them off.
    private func deliverAll(_ job: JobRecord) async -> JobRecord? {
        guard job.state == .succeeded else {
            return await jobs.updateDeliveries(job.id) { delivery in
                guard !delivery.state.isFinal else { return }
                delivery.state = .skipped
                delivery.error = "the job did not succeed"
            }
        }
        let targets = (try? await jobs.io { [store = jobs.store] in try store.egressTargets(id: job.id) })
        var latest: JobRecord? = job
        for delivery in job.deliveries ?? [] where !delivery.state.isFinal {
            // Only while this server makes the job's deliveries: with `--database`, another replica takes
            // them over when this one's delivery lease lapses.
            guard await jobs.mayDeliver(job.id) else { return nil }
            let file =
                job.outputs.contains { $0.name == delivery.name }
                ? jobs.store.outputDirectory(id: job.id) + "/" + delivery.name : nil
            latest = await deliver(delivery, of: job.id, file: file, to: targets?.outputs[delivery.name]) ?? latest
            if Task.isCancelled { return nil }
        }
        return latest
    }

    /// Runs one delivery's attempts to its end (or a shutdown), saving each change; the record as saved last.
    private func deliver(_ start: OutputDelivery, of id: String, file: String?, to text: String?) async -> JobRecord? {
        var delivery = start
        var latest: JobRecord? = nil
        func save() async { latest = await jobs.recordDelivery(id, delivery) ?? latest }
        guard let file else {
            delivery.state = .failed
            delivery.error = "the job has no output named \(delivery.name)"
            await save()
            return latest
        }
        guard let text, let url = try? HTTPURL(text) else {
            delivery.state = .failed
            delivery.error = "the URL of this delivery is missing from egress.json"
            await save()
            return latest
        }
        while !Task.isCancelled {
            delivery.state = .delivering
            delivery.attempts += 1
            await save()
            let result = await attempt(url, file: file, name: delivery.name)
            delivery.status = result.status ?? delivery.status
            delivery.error = result.error
            delivery.etag = result.etag
            switch result.verdict {
            case .delivered:
                delivery.state = .delivered
            case .failed:
                delivery.state = .failed
            case .retry where delivery.attempts >= Self.maxAttempts:
                delivery.state = .failed
            case .retry:
                await save()
                let delay = retryBase * pow(2, Double(delivery.attempts - 1))
                try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                guard await jobs.mayDeliver(id) else { return latest }
                continue
            }
            await save()
            return latest
        }
        return latest
    }
}
