import Foundation

/// A replica's claim on one job in a store shared by several servers: while a lease is live, only its
/// holder runs the job and writes its `job.json`.
///
/// Leases are files `jobs/<id>/lease.<generation>`. A replica takes generation `n + 1` only when lease `n`
/// is missing, expired or released, by hard-linking a fully written temporary file to that name: `link(2)`
/// fails with `EEXIST` for every replica but one, on local file systems and NFS alike. Generations only
/// grow, so a holder that stalled past its expiry sees a higher generation at its next heartbeat and knows
/// it has lost the job, even if the replica that took over has finished and released it since.
public struct Lease: Codable, Sendable, Equatable {
    /// Counts the claims of this job: 1 for the first.
    public var generation: Int
    /// The replica holding it (`--replica-id`).
    public var replica: String
    /// Until when the lease holds unless renewed; a released lease has expired.
    public var expiresAt: Date
    /// The holder's last reported progress of the run (0…1), so other replicas can show it.
    public var progress: Double = 0

    /// True while the lease keeps others off the job.
    public func isLive(at now: Date) -> Bool { expiresAt > now }

    enum CodingKeys: String, CodingKey {
        case generation, replica, progress
        case expiresAt = "expires_at"
    }

    static let filePrefix = "lease."

    static func fileName(generation: Int) -> String { filePrefix + String(generation) }

    /// The generation a lease file name stands for, or nil for other names.
    static func generation(ofFileName name: String) -> Int? {
        guard name.hasPrefix(filePrefix) else { return nil }
        return Int(name.dropFirst(filePrefix.count)).flatMap { $0 > 0 ? $0 : nil }
    }
}

/// What `JobStore.claim` did.
public enum ClaimOutcome: Sendable, Equatable {
    /// The lease is ours.
    case claimed(Lease)
    /// Another replica holds this live lease.
    case held(Lease)
    /// Another replica took the same generation first.
    case lostRace
    /// The job directory is gone.
    case gone
}
