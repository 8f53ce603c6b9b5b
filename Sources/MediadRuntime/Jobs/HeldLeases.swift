import Foundation
import JobStore

/// The leases a replica holds, one for each job it runs, and the lease file operations it makes.
///
/// Belongs to a `LeaseScheduler` and runs on its job service's actor. Claims, renewals and releases run one
/// at a time on a serial queue, in the order the actor asks for them (each is queued before the actor
/// suspends), so a release is never overtaken by a renewal asked for earlier, which would make a finished
/// or requeued job's lease live again.
final class HeldLeases {
    private let store: JobStore
    private let settings: ReplicaSettings
    private var held: [String: Lease] = [:]
    private static let queue = DispatchQueue(label: "mediad.leases")

    init(store: JobStore, settings: ReplicaSettings) {
        self.store = store
        self.settings = settings
    }

    /// The lease held on the job, if any.
    subscript(id: String) -> Lease? { held[id] }

    /// Keeps a lease just claimed on the job.
    func hold(_ lease: Lease, of id: String) {
        held[id] = lease
    }

    /// Drops the job's lease without releasing it: it was lost, or is left to expire.
    func forget(_ id: String) {
        held[id] = nil
    }

    /// Runs `body`, a lease file operation, after those asked for before it. Isolated to `jobs`, so that
    /// `body` is on the queue before the actor can suspend and take another request.
    func io<T: Sendable>(_ jobs: isolated JobService, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Self.queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Claims the job's lease for this replica.
    func claim(_ id: String, _ jobs: isolated JobService) async throws -> ClaimOutcome {
        try await io(jobs) { [store, settings] in
            try store.claim(id: id, replica: settings.replicaID, ttl: settings.leaseTTL)
        }
    }

    /// Gives up the leases that a previous process with this replica's id left on the jobs `ids`.
    func releaseLeftBehind(_ ids: [String], _ jobs: isolated JobService) async throws {
        try await io(jobs) { [store, settings] in
            for id in ids {
                if let lease = try? store.currentLease(id: id), lease.replica == settings.replicaID {
                    try store.release(lease, id: id)
                }
            }
        }
    }

    /// Renews the lease of every job that runs here, and stops the runs whose lease another replica took
    /// or whose job has a cancel request.
    func renew(_ jobs: isolated JobService) async {
        let runs = held.compactMap { id, lease in jobs.running[id].map { (id, lease, $0.progress) } }
        guard !runs.isEmpty else { return }
        let renewals: [(String, Int, Lease?, Bool)]
        do {
            renewals = try await io(jobs) { [store, settings] in
                runs.map { id, lease, progress in
                    // An I/O error keeps the old lease: renewal is tried again next beat, before it expires.
                    let renewed: Lease?
                    do {
                        renewed = try store.renew(lease, id: id, ttl: settings.leaseTTL, progress: progress)
                    } catch {
                        renewed = lease
                    }
                    return (id, lease.generation, renewed, store.isCancelRequested(id: id))
                }
            }
        } catch {
            return
        }
        for (id, generation, renewed, cancel) in renewals {
            guard let run = jobs.running[id], held[id]?.generation == generation else { continue }
            if let renewed { held[id] = renewed } else { run.requestStop(.leaseLost) }
            if cancel { run.requestStop(.cancelledByUser) }
        }
    }

    /// Lets the job's lease go (it expires now), so another replica may claim the job at once.
    func release(_ id: String, _ jobs: isolated JobService) async {
        guard let lease = held.removeValue(forKey: id) else { return }
        await release(lease, of: id, jobs)
    }

    /// Lets `lease` go, whether kept or not.
    func release(_ lease: Lease, of id: String, _ jobs: isolated JobService) async {
        try? await io(jobs) { [store] in try store.release(lease, id: id) }
    }
}
