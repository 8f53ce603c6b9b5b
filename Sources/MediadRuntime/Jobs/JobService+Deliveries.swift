import Foundation
import JobStore

extension JobService {
    /// Replaces the job's delivery of the same output name with `delivery` and saves the record; the
    /// record as saved, nil when the job is gone or the save failed.
    package func recordDelivery(_ id: String, _ delivery: OutputDelivery) async -> JobRecord? {
        await updateDeliveries(id) { if $0.name == delivery.name { $0 = delivery } }
    }

    /// Applies `change` to each of the job's deliveries and saves the record; the record as saved, nil
    /// when the job is gone or the save failed.
    package func updateDeliveries(_ id: String, _ change: (inout OutputDelivery) -> Void) async -> JobRecord? {
        guard var record = records[id] else { return nil }
        record.deliveries = record.deliveries?.map { delivery in
            var delivery = delivery
            change(&delivery)
            return delivery
        }
        records[id] = record
        do {
            try await saveDelivery(record, final: false)
            return record
        } catch {
            return nil
        }
    }

    /// Appends a webhook delivery attempt to the job's record and saves it, ending the job's deliveries
    /// when `final` (its last attempt); false when the job is gone or the record was not saved (with
    /// `--database`, another replica took the deliveries over).
    package func recordNotification(_ id: String, _ attempt: NotificationAttempt, final: Bool) async -> Bool {
        guard var record = records[id] else { return false }
        record.notifications = (record.notifications ?? []) + [attempt]
        records[id] = record
        do {
            try await saveDelivery(record, final: final)
            return true
        } catch {
            return false
        }
    }

    /// The job has nothing (left) to deliver here: with `--database`, this replica lets its deliveries go.
    package func deliveriesEnded(_ id: String) async {
        await coordination?.endDeliveries(id, self)
    }

    /// Whether this server still makes the job's deliveries, asked before each attempt: always, but with
    /// `--database` only while this replica holds the job's delivery lease (renewed by asking).
    package func mayDeliver(_ id: String) async -> Bool {
        await coordination?.holdsDeliveries(id, self) ?? true
    }

    /// Takes the job's deliveries here for a redelivery on request; false when, with `--database`, another
    /// replica makes them now. Throws `store_unavailable` when the database cannot be used.
    package func takeDeliveries(_ id: String) async throws -> Bool {
        try await coordination?.takeDeliveries(id, self) ?? true
    }

    /// Saves the record of an ended job whose deliveries this server makes (fenced by the delivery lease
    /// with `--database`).
    private func saveDelivery(_ record: JobRecord, final: Bool) async throws {
        if let coordination { return try await coordination.saveDelivery(record, final: final, self) }
        try await io { [store] in try store.save(record) }
    }
}
