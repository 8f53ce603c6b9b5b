import CoreMetrics
import Synchronization

/// The request metrics of the HTTP layer, recorded through swift-metrics (the server bootstraps the
/// backend and exposes it). Requests are labelled with their route's template, never the raw path.
///
/// The metrics of each series (method, route, status) are made once and kept: making one looks it up in
/// the registry by its sanitised name and labels under a lock, which cost more than the rest of
/// answering a job's status from memory. Series stay few (the methods NIO's parser knows, the routes,
/// the statuses), as they do in the registry itself.
package enum HTTPMetrics {
    package static let requests = "mediad_http_requests_total"
    package static let requestDuration = "mediad_http_request_duration_seconds"
    package static let uploadedBytes = "mediad_uploaded_bytes_total"
    package static let servedBytes = "mediad_served_bytes_total"
    /// The route label of a request that matched no route.
    package static let unmatchedRoute = "unmatched"

    private struct Series: Hashable {
        var method: String
        var route: String
        var status: UInt
    }

    private struct Handles: Sendable {
        var requests: Counter
        var duration: Timer
    }

    private static let series = Mutex<[Series: Handles]>([:])
    private static let uploaded = Counter(label: uploadedBytes)
    private static let served = Counter(label: servedBytes)

    /// One answered request.
    package static func request(
        method: String, route: String?, status: UInt, duration: Duration, received: Int64, sent: Int
    ) {
        let key = Series(method: method, route: route ?? unmatchedRoute, status: status)
        let handles = series.withLock { $0[key] } ?? made(key)
        handles.requests.increment()
        let (seconds, attoseconds) = duration.components
        handles.duration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        if received > 0 { uploaded.increment(by: received) }
        if sent > 0 { served.increment(by: sent) }
    }

    /// The metrics of a series seen for the first time, made outside the lock and kept.
    private static func made(_ key: Series) -> Handles {
        let handles = Handles(
            requests: Counter(
                label: requests,
                dimensions: [("method", key.method), ("route", key.route), ("status", String(key.status))]),
            duration: Timer(label: requestDuration, dimensions: [("method", key.method), ("route", key.route)]))
        return series.withLock { known in
            if let first = known[key] { return first }
            known[key] = handles
            return handles
        }
    }
}
