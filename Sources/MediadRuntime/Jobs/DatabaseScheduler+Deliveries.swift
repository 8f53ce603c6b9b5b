import Foundation
import JobDatabase
import JobStore
import Logging

/// The replica's part in the delivery leases (`JobDatabase`'s, see there): the ended jobs whose output
/// deliveries and webhook this replica makes (`delivering`), renewed each heartbeat, and those it takes
/// over from a replica that stopped renewing them.
///
/// A replica delivers a job only while it holds the job's lease: the deliverers ask (`holdsDeliveries`,
/// which renews it) before each attempt, and each write of the record is fenced by the lease. Any doubt —
/// a write refused or failed, a renewal that does not find the lease — lets the job go here; its lease then
/// lapses and a replica (this one too) takes it over, from the attempts recorded.
///
/// So no two replicas make a job's deliveries at once. A webhook may still reach its receiver twice when
/// its replica dies during an attempt the receiver took but the record does not show: the replica that
/// takes over sends it again, with the same `webhook-id`, by which Standard Webhooks receivers dedupe.
extension DatabaseScheduler {
    /// Saves the record of a job whose deliveries this replica makes, fenced by its delivery lease, which
    /// the save ends when `final`; `lease_lost` when another replica took them over. A database that does
    /// not answer is tried again for up to half the lease's time, then the job is let go.
    func saveDelivery(_ record: JobRecord, final: Bool, _ jobs: isolated JobService) async throws {
        let id = record.id
        guard delivering.contains(id) else { throw StoreError.leaseLost(id) }
        let saved: Bool
        do {
            saved = try await retrying(jobs) { [replicaID] in
                try await $0.saveDelivery(record, deliverer: replicaID, ends: final)
            }
        } catch let error as DatabaseError {
            delivering.remove(id)
            throw Self.unavailable(error)
        }
        guard saved else {
            delivering.remove(id)
            jobs.events.logger.warning(
                "another replica took over the deliveries of a job", metadata: ["job_id": .string(id)])
            _ = await storedRecord(id, jobs)
            throw StoreError.leaseLost(id)
        }
        if final { delivering.remove(id) }
        try await jobs.io { [store = jobs.store] in try store.save(record) }
    }

    /// Ends the job's delivery lease, when this replica holds it.
    func endDeliveries(_ id: String, _ jobs: isolated JobService) async {
        guard delivering.remove(id) != nil else { return }
        // When this fails the lease lapses, and the replica that takes it over finds nothing to do either.
        _ = try? await call(jobs) { [replicaID] in try await $0.endDeliveries(id, deliverer: replicaID) }
    }

    /// Whether this replica still holds the job's delivery lease, renewed by the asking.
    func holdsDeliveries(_ id: String, _ jobs: isolated JobService) async -> Bool {
        guard delivering.contains(id) else { return false }
        let renewed = try? await call(jobs) { [replicaID, ttl = settings.leaseTTL] in
            try await $0.renewDeliveries([id], replica: replicaID, ttl: ttl)
        }
        guard renewed?.contains(id) == true else {
            delivering.remove(id)
            return false
        }
        return true
    }

    /// Takes the job's deliveries for a redelivery on request, unless another replica's lease on them is
    /// live. Throws `store_unavailable` when the database cannot be used.
    func takeDeliveries(_ id: String, _ jobs: isolated JobService) async throws -> Bool {
        let taken: Bool
        do {
            taken = try await call(jobs) { [replicaID, ttl = settings.leaseTTL] in
                try await $0.takeDeliveries(id, replica: replicaID, ttl: ttl)
            }
        } catch {
            throw Self.unavailable(error)
        }
        if taken { delivering.insert(id) }
        return taken
    }

    /// Renews the delivery leases held here; a job whose lease another replica took over is let go.
    func renewDeliveries(_ jobs: isolated JobService) async {
        let ids = Array(delivering)
        guard !ids.isEmpty,
            let renewed = try? await call(
                jobs,
                { [replicaID, ttl = settings.leaseTTL] in
                    try await $0.renewDeliveries(ids, replica: replicaID, ttl: ttl)
                })
        else { return }
        for id in ids where !renewed.contains(id) && delivering.remove(id) != nil {
            jobs.events.logger.warning(
                "another replica took over the deliveries of a job", metadata: ["job_id": .string(id)])
        }
    }

    /// Takes over the deliveries whose replica stopped renewing their lease, and hands them to this
    /// replica's deliverer, which goes on from the attempts recorded. Not while this replica drains.
    func takeOverDeliveries(_ jobs: isolated JobService) async {
        guard jobs.accepting else { return }
        let taken = try? await call(jobs) { [replicaID, ttl = settings.leaseTTL] in
            try await $0.takeOverExpiredDeliveries(replica: replicaID, ttl: ttl)
        }
        for takeover in taken ?? [] {
            let record = takeover.record
            jobs.events.logger.warning(
                "took over the deliveries of a job whose replica stopped renewing them",
                metadata: ["job_id": .string(record.id), "from": .string(takeover.from)])
            delivering.insert(record.id)
            remember(record, jobs)
            jobs.resumeDeliveries(of: record)
        }
    }
}
