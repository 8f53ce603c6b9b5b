import Foundation
import JobStore

/// Shared-store mode (`--shared-store`): several `mediad serve` replicas on one data directory.
///
/// Each replica keeps an index of every job, refreshed from the store every heartbeat, and reads a job's
/// record from disk whenever it does not run that job itself. A replica runs a job only while it holds the
/// job's lease (`JobStore.claim`), renewing it every `heartbeat`; a lease not renewed for `leaseTTL` (its
/// holder died or hung) lets another replica take the job over, as a new attempt.
public struct ReplicaSettings: Sendable {
    /// Names this replica in leases, in `job.json` (`replica`) and in each job's `runs` file. Must differ
    /// between replicas that run at the same time.
    public var replicaID: String
    /// How long a claim holds without renewal.
    public var leaseTTL: TimeInterval = 30
    /// How often leases are renewed, cancel requests looked for, and the store rescanned.
    public var heartbeat: TimeInterval = 5

    /// How often a long-poll re-reads the record of a job that runs on another replica.
    package static let pollInterval: TimeInterval = 0.5
    /// Start-up removes crash leftovers (uploads, staged jobs, partial outputs) only when untouched this
    /// long, since in a shared store they may belong to work under way on another replica.
    package static let leftoverAge: TimeInterval = 3600

    public init(replicaID: String = ReplicaSettings.defaultReplicaID()) {
        self.replicaID = replicaID
    }

    /// `<hostname>-<pid>-<random>`: unique across restarts and hosts. The host name comes from
    /// `gethostname(2)`, which needs no name service.
    public static func defaultReplicaID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let named = gethostname(&buffer, buffer.count - 1) == 0
        let name = named ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let host = name.split(separator: ".").first.map(String.init) ?? "mediad"
        let safe = host.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        return "\(safe.isEmpty ? "mediad" : safe)-\(getpid())-\(JobStore.newID().prefix(6))"
    }
}
