import Foundation
import JobStore
import MediaJobs

/// A position in the job list's newest-first order: a job's creation time in whole milliseconds and its id,
/// the key the list pages on (as `GET /jobs`' cursor holds it).
public struct JobListPosition: Sendable, Hashable, Comparable {
    public var milliseconds: Int64
    public var id: String

    public init(milliseconds: Int64, id: String) {
        self.milliseconds = milliseconds
        self.id = id
    }

    /// The position of `record`: its creation time to the nearest millisecond, as its JSON holds it.
    public init(record: JobRecord) {
        self.init(milliseconds: Int64((record.createdAt.timeIntervalSince1970 * 1000).rounded()), id: record.id)
    }

    public static func < (lhs: JobListPosition, rhs: JobListPosition) -> Bool {
        (lhs.milliseconds, lhs.id) < (rhs.milliseconds, rhs.id)
    }
}

/// Which jobs a list holds; nil matches every job.
public struct JobListFilter: Sendable, Equatable {
    public var state: JobState?
    public var kind: JobKind?
    /// The API token's name that created the job.
    public var owner: String?

    public init(state: JobState? = nil, kind: JobKind? = nil, owner: String? = nil) {
        self.state = state
        self.kind = kind
        self.owner = owner
    }
}

/// One page of the list, newest first.
public struct JobListPage: Sendable {
    public var records: [JobRecord]
    /// Where the next page starts (the last record's position); nil on the last page.
    public var next: JobListPosition?
}
