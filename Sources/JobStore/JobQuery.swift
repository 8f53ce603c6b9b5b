import Foundation
import MediaJobs

/// A request for one page of the job list (`GET /jobs?state=&kind=&limit=&cursor=`).
///
/// Jobs are listed newest first, by (`created_at`, `id`) descending. The cursor names the last job of the
/// previous page by that key, not by position, so jobs created or deleted between two requests never make
/// a page repeat or skip a job that existed throughout.
public struct JobQuery: Sendable, Equatable {
    public static let defaultLimit = 20
    public static let limits = 1...100

    public var state: JobState?
    public var kind: JobKind?
    /// Jobs per page, within `limits`.
    public var limit: Int
    /// `nextCursor` of the previous page; nil for the first page.
    public var cursor: String?

    public init(state: JobState? = nil, kind: JobKind? = nil, limit: Int = defaultLimit, cursor: String? = nil) {
        self.state = state
        self.kind = kind
        self.limit = limit
        self.cursor = cursor
    }
}

/// One page of the job list; encodes as `{"jobs":[…],"next_cursor":…}` (`null` on the last page).
public struct JobPage: Encodable, Sendable, Equatable {
    public var jobs: [JobRecord]
    /// Where the next page starts; nil when this page is the last.
    public var nextCursor: String?

    public init(jobs: [JobRecord], nextCursor: String?) {
        self.jobs = jobs
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case jobs
        case nextCursor = "next_cursor"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    /// The page of `records` that `query` asks for. Throws `invalid_limit` for a limit outside
    /// `JobQuery.limits` and `invalid_cursor` for a cursor this code did not make.
    public static func page(_ records: [JobRecord], _ query: JobQuery) throws -> JobPage {
        guard JobQuery.limits.contains(query.limit) else {
            throw StoreError(
                code: "invalid_limit",
                message:
                    "limit must be \(JobQuery.limits.lowerBound)...\(JobQuery.limits.upperBound), not \(query.limit)")
        }
        let after = try query.cursor.map(Cursor.init(text:))
        let matching =
            records
            .filter { query.state == nil || $0.state == query.state }
            .filter { query.kind == nil || $0.kind == query.kind }
            .map { (key: Cursor(record: $0), record: $0) }
            .filter { item in after.map { item.key < $0 } ?? true }
            .sorted { $0.key > $1.key }
        let jobs = matching.prefix(query.limit)
        let next = matching.count > query.limit ? jobs.last?.key.text : nil
        return JobPage(jobs: jobs.map(\.record), nextCursor: next)
    }
}

/// A position in the newest-first order: a job's creation time in whole milliseconds and its id. Its text
/// form is URL-safe base64 of `<milliseconds>:<id>`, opaque to clients.
struct Cursor: Comparable {
    var milliseconds: Int64
    var id: String

    init(record: JobRecord) {
        milliseconds = Int64((record.createdAt.timeIntervalSince1970 * 1000).rounded(.down))
        id = record.id
    }

    init(text: String) throws {
        guard text.utf8.count <= 64, let data = Base64URL.decode(text),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":"),
            let milliseconds = Int64(decoded[..<colon])
        else { throw StoreError.invalidCursor }
        let id = String(decoded[decoded.index(after: colon)...])
        guard JobStore.isValidID(id) else { throw StoreError.invalidCursor }
        self.milliseconds = milliseconds
        self.id = id
    }

    var text: String {
        Base64URL.encode(Data("\(milliseconds):\(id)".utf8))
    }

    static func < (lhs: Cursor, rhs: Cursor) -> Bool {
        (lhs.milliseconds, lhs.id) < (rhs.milliseconds, rhs.id)
    }
}
