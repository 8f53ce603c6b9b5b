import JobStore
import MediaJobs
import MediadHTTP
import NIOHTTP1

/// A request for one page of the job list (`GET /jobs?state=&kind=&limit=&cursor=`).
///
/// Jobs are listed newest first, by (`created_at`, `id`) descending. The cursor names the last job of the
/// previous page by that key, not by position, so jobs created or deleted between two requests never make
/// a page repeat or skip a job that existed throughout.
struct JobQuery: Sendable, Equatable {
    static let defaultLimit = 20
    static let limits = 1...100

    var state: JobState?
    var kind: JobKind?
    /// Jobs per page, within `limits`.
    var limit = defaultLimit
    /// `nextCursor` of the previous page; nil for the first page.
    var cursor: String?
}

extension JobQuery {
    /// Reads the query parameters of `GET /jobs`; an unknown parameter or a bad value is `invalid_option`.
    init(parameters: [String: String]) throws {
        for (name, value) in parameters {
            switch name {
            case "state": state = try Self.choice(name, value, of: JobState.self)
            case "kind": kind = try Self.choice(name, value, of: JobKind.self)
            case "limit":
                guard let limit = Int(value), Self.limits.contains(limit) else {
                    throw ServiceError(
                        .badRequest, "invalid_option",
                        "limit must be an integer from \(Self.limits.lowerBound) to \(Self.limits.upperBound)")
                }
                self.limit = limit
            case "cursor": cursor = value
            default:
                throw ServiceError(
                    .badRequest, "invalid_option",
                    "unknown parameter \(name); this route takes: state, kind, limit, cursor")
            }
        }
    }

    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ name: String, _ text: String, of type: Value.Type
    ) throws -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServiceError(.badRequest, "invalid_option", "\(name) must be one of: \(allowed)")
        }
        return value
    }
}
