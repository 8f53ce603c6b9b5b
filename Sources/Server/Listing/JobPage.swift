import JobStore
import MediadHTTP
import NIOHTTP1

/// One page of the job list; encodes as `{"jobs":[…],"next_cursor":…}` (`null` on the last page).
struct JobPage: Encodable, Sendable, Equatable {
    var jobs: [JobRecord]
    /// Where the next page starts; nil when this page is the last.
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case jobs
        case nextCursor = "next_cursor"
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    /// The page of `records` that `query` asks for. Throws `invalid_limit` for a limit outside
    /// `JobQuery.limits` and `invalid_cursor` for a cursor this server did not make (both 400).
    static func page(_ records: [JobRecord], _ query: JobQuery) throws -> JobPage {
        guard JobQuery.limits.contains(query.limit) else {
            throw ServiceError(
                .badRequest, "invalid_limit",
                "limit must be \(JobQuery.limits.lowerBound)...\(JobQuery.limits.upperBound), not \(query.limit)")
        }
        let after = try query.cursor.map(JobListCursor.init(text:))
        let matching =
            records
            .filter { query.state == nil || $0.state == query.state }
            .filter { query.kind == nil || $0.kind == query.kind }
            .map { (key: JobListCursor(record: $0), record: $0) }
            .filter { item in after.map { item.key < $0 } ?? true }
            .sorted { $0.key > $1.key }
        let jobs = matching.prefix(query.limit)
        let next = matching.count > query.limit ? jobs.last?.key.text : nil
        return JobPage(jobs: jobs.map(\.record), nextCursor: next)
    }
}
