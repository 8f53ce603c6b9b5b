import Foundation
import JobStore
import MediaCore
import MediadClient
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Delivers job-end webhooks: POSTs the job JSON to its `callback_url`, signed, and retries non-2xx
/// answers, connection errors and timeouts with exponential backoff until `retryWindow` after the job
/// ended. Every attempt is recorded in the job through `JobService`, the only writer of `job.json`.
///
/// Redirects are never followed, and the host is checked against `--webhook-allow` again before each
/// delivery (a server restarted with a narrower list does not call hosts it no longer allows), then
/// resolved and pinned by `CallbackAddress`, which keeps allowed names off internal addresses.
/// Deliveries are child tasks of the notifier's `run`, a service of the group: a shutdown cancels those
/// under way, and a restart resumes those of jobs that ended within the window and have no 2xx yet
/// (`OutputDeliverer.resume`). With `--database`, a replica makes a job's attempts only while it holds the
/// job's delivery lease (`DatabaseScheduler+Deliveries`), and another replica goes on with them, with the
/// same `webhook-id`, when this one dies: a receiver may then get an event twice, only when this replica
/// died during an attempt the receiver took, and dedupes it by `webhook-id` as Standard Webhooks says.
package final class WebhookNotifier: Service, Sendable {
    /// One job's delivery, from its next attempt on.
    private struct Delivery: Sendable {
        var id: String
        var callback: String
        var payload: [UInt8]
        var secret: String
        /// The number of its first attempt in its backoff: 1 goes at once, a later one waits as that retry would.
        var attempt: Int
        var deadline: Date
        /// Which of the job's deliveries this is, so that one that ended releases only its own claim.
        var serial: UInt64
    }

    private let settings: WebhookSettings
    private let client: HTTPClient
    private let jobs: JobService
    /// Jobs with a delivery under way, by the serial of that delivery, so that a job ending while `resume`
    /// runs is not delivered twice and a redelivery is refused while one is under way.
    private let active = Mutex<(claims: [String: UInt64], next: UInt64)>(([:], 0))
    private let (pending, deliveries) = AsyncStream.makeStream(of: Delivery.self)

    /// A notifier for the jobs of `jobs`. It hears of their ends from the `OutputDeliverer`, once their
    /// outputs are delivered, which also resumes at start the deliveries a restart cut off (in a shared
    /// store, of the jobs this replica ran last).
    package init(settings: WebhookSettings, jobs: JobService) throws {
        self.settings = settings
        self.jobs = jobs
        client = try HTTPClient(tls: settings.tls)
    }

    /// Starts delivering the end of `job`, unless it has no callback, was delivered, or its window closed.
    /// The window runs from when the job ended, or from `windowFrom` when the job's outputs were delivered
    /// later than that.
    package func deliver(_ job: JobRecord, windowFrom: Date? = nil) {
        let previous = job.notifications ?? []
        let deadline = (windowFrom ?? job.finishedAt ?? Date()).addingTimeInterval(settings.retryWindow)
        guard job.callbackURL != nil, settings.secret != nil, !previous.contains(where: \.delivered),
            Date() < deadline
        else {
            // Nothing (left) to deliver: with `--database`, the replica holding the job's deliveries lets go.
            Task { [jobs] in await jobs.deliveriesEnded(job.id) }
            return
        }
        queue(job, deadline: deadline)
    }

    /// Delivers the end of a finished `job` again, on request (`POST /jobs/{id}/notifications`): with the
    /// same `webhook-id`, whether or not it was delivered before, retried for a new window from now. False
    /// when the job has no callback or a delivery of it is under way (with `--database`, on any replica:
    /// this one takes the job's deliveries first). Throws `store_unavailable` when the database cannot be
    /// used.
    /// Its first attempt goes at once and its retries back off from the start again, as a new delivery's.
    package func redeliver(_ job: JobRecord) async throws -> Bool {
        guard try await jobs.takeDeliveries(job.id) else { return false }
        return queue(job, deadline: Date().addingTimeInterval(settings.retryWindow), resuming: false)
    }

    /// Queues the delivery of `job`'s end. One `resuming` earlier attempts goes on with their backoff: its
    /// first attempt waits as the next retry would have.
    @discardableResult
    private func queue(_ job: JobRecord, deadline: Date, resuming: Bool = true) -> Bool {
        guard let callback = job.callbackURL, let secret = settings.secret else { return false }
        let previous = job.notifications ?? []
        var body = job
        body.notifications = nil
        guard let payload = try? JobJSON.encoder().encode(body),
            let serial = active.withLock({ active -> UInt64? in
                guard active.claims[job.id] == nil else { return nil }
                active.next += 1
                active.claims[job.id] = active.next
                return active.next
            })
        else { return false }
        deliveries.yield(
            Delivery(
                id: job.id, callback: callback, payload: Array(payload), secret: secret,
                attempt: resuming ? previous.count + 1 : 1, deadline: deadline, serial: serial))
        return true
    }

    /// Ends `delivery`'s claim on its job, unless a newer delivery holds it already.
    private func release(_ delivery: Delivery) {
        active.withLock { active in
            if active.claims[delivery.id] == delivery.serial { active.claims[delivery.id] = nil }
        }
    }

    /// Delivers what `deliver` queues, each job in a child task, until a graceful shutdown cancels them.
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for await delivery in self.pending {
                    group.addTask {
                        await self.deliver(delivery)
                        // Released already when its last attempt was recorded; a cancelled one is released here.
                        self.release(delivery)
                    }
                }
            }
        }
    }

    /// Makes the attempts of `delivery` until one succeeds or its window closes. The claim on the job is
    /// released before the last attempt is recorded, so that a client who sees that attempt listed can
    /// ask for a redelivery at once (`POST /jobs/{id}/notifications` answered 409 `delivery_in_progress`
    /// only while a later attempt is still to come).
    private func deliver(_ delivery: Delivery) async {
        let url: HTTPURL
        do {
            url = try settings.check(delivery.callback)
        } catch {
            let message = (error as? MediaError)?.message ?? "\(error)"
            release(delivery)
            _ = await jobs.recordNotification(
                delivery.id, NotificationAttempt(at: Date(), status: nil, error: message), final: true)
            return
        }
        var number = delivery.attempt
        if number > 1 { try? await Task.sleep(for: .milliseconds(Int(settings.delay(beforeAttempt: number) * 1000))) }
        // Each attempt only while this server makes the job's deliveries: with `--database`, another
        // replica takes them over when this one's delivery lease lapses.
        while !Task.isCancelled, await jobs.mayDeliver(delivery.id) {
            let attempt = await self.attempt(url, delivery)
            let delay = settings.delay(beforeAttempt: number + 1)
            let last = attempt.delivered || Date().addingTimeInterval(delay) >= delivery.deadline
            if last { release(delivery) }
            guard await jobs.recordNotification(delivery.id, attempt, final: last), !last else { return }
            number += 1
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        }
    }

    private func attempt(_ url: HTTPURL, _ delivery: Delivery) async -> NotificationAttempt {
        let now = Date()
        let address: SocketAddress
        do {
            address = try await NIOThreadPool.singleton.runIfActive { [settings] in
                try CallbackAddress.resolve(url, allowed: settings.allowedHosts)
            }
        } catch {
            return NotificationAttempt(at: now, status: nil, error: "\(error)")
        }
        let timestamp = Int(now.timeIntervalSince1970)
        let signature = WebhookSignature.header(secret: delivery.secret, timestamp: timestamp, body: delivery.payload)
        let standard = StandardWebhookHeaders(secret: delivery.secret).headers(
            eventID: StandardWebhookHeaders.eventID(ofJob: delivery.id), timestamp: timestamp, body: delivery.payload)
        do {
            let response = try await client.send(
                .POST, url, address: address,
                headers: [("Content-Type", "application/json"), ("Mediad-Signature", signature)] + standard,
                body: .bytes(delivery.payload), timeout: .milliseconds(Int64(settings.attemptTimeout * 1000)),
                sink: { _ in })
            let ok = (200..<300).contains(response.status)
            return NotificationAttempt(
                at: now, status: response.status, error: ok ? nil : "the receiver answered \(response.status)")
        } catch {
            return NotificationAttempt(at: now, status: nil, error: "\(error)")
        }
    }
}
