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
            try await save(record)
            return record
        } catch {
            return nil
        }
    }
}
