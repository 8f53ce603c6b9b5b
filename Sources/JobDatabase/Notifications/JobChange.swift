import Foundation
import JobStore

/// What one `JobDatabase.changedChannel` notification says about a job.
///
/// The trigger on `jobs` sends the row as the write left it, with the replica whose connection wrote it,
/// so that a replica takes a change into its index without reading the job again. A row that does not fit
/// in a notification (PostgreSQL's payload limit is 8000 bytes) is sent as the job's id alone, and so is a
/// deletion: then `stored` is nil and the reader loads the job (`JobDatabase.load`), which says whether it
/// still exists.
public struct JobChange: Sendable {
    /// The job that changed.
    public var id: String
    /// The row as the write left it; nil when only the id came.
    public var stored: StoredJob?
    /// The replica whose connection made the write (`DatabaseSettings.replica`); nil when only the id came,
    /// or a connection of no replica (psql, say) wrote it.
    public var writer: String?

    /// The change a notification's payload describes. A payload that is not a row, or a row that does not
    /// decode (written by a newer mediad, say), is taken as an id: the job is read then.
    public init(payload: String) {
        guard payload.hasPrefix("{"),
            let row = try? JobJSON.decoder().decode(Row.self, from: Data(payload.utf8))
        else {
            self.init(id: payload, stored: nil, writer: nil)
            return
        }
        var record = row.record
        if record.state == .running { record.progress = row.progress }
        let stored = StoredJob(
            record: record, holder: row.holder, leaseExpiresAt: row.leaseExpires.map(Date.init(timeIntervalSince1970:)),
            attempts: row.attempts, cancelRequested: row.cancelRequested, deliverer: row.deliverer,
            deliveryExpiresAt: row.deliveryExpires.map(Date.init(timeIntervalSince1970:)))
        let prefix = DatabaseSettings.applicationNamePrefix
        let writer = row.by.hasPrefix(prefix) ? String(row.by.dropFirst(prefix.count)) : nil
        self.init(id: row.id, stored: stored, writer: writer)
    }

    init(id: String, stored: StoredJob?, writer: String?) {
        self.id = id
        self.stored = stored
        self.writer = writer
    }

    /// The row as the trigger builds it (`json_build_object`): times as seconds since 1970.
    private struct Row: Decodable {
        var id: String
        var by: String
        var record: JobRecord
        var holder: String?
        var leaseExpires: Double?
        var attempts: Int
        var cancelRequested: Bool
        var progress: Double
        var deliverer: String?
        var deliveryExpires: Double?

        enum CodingKeys: String, CodingKey {
            case id, by, record, holder, attempts, progress, deliverer
            case leaseExpires = "lease_expires"
            case cancelRequested = "cancel_requested"
            case deliveryExpires = "delivery_expires"
        }
    }
}
