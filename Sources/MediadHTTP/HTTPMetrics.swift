import CoreMetrics

/// The request metrics of the HTTP layer, recorded through swift-metrics (the server bootstraps the
/// backend and exposes it). Requests are labelled with their route's template, never the raw path.
package enum HTTPMetrics {
    package static let requests = "mediad_http_requests_total"
    package static let requestDuration = "mediad_http_request_duration_seconds"
    package static let uploadedBytes = "mediad_uploaded_bytes_total"
    package static let servedBytes = "mediad_served_bytes_total"
    /// The route label of a request that matched no route.
    package static let unmatchedRoute = "unmatched"

    /// One answered request.
    package static func request(
        method: String, route: String?, status: UInt, duration: Duration, received: Int64, sent: Int
    ) {
        let route = route ?? unmatchedRoute
        Counter(label: requests, dimensions: [("method", method), ("route", route), ("status", String(status))])
            .increment()
        let (seconds, attoseconds) = duration.components
        Timer(label: requestDuration, dimensions: [("method", method), ("route", route)])
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        if received > 0 { Counter(label: uploadedBytes).increment(by: received) }
        if sent > 0 { Counter(label: servedBytes).increment(by: sent) }
    }
}
