import MediadHTTP
import NIOCore

extension ServerConfiguration {
    /// A configuration the server cannot run with.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// The client limits of the HTTP server, after raising the descriptor limit as far as the system lets
    /// this process. An explicit `maxConnections` the descriptors cannot carry is refused rather than left
    /// to fail under load.
    func connectionLimits() throws -> HTTPServer.Limits {
        let descriptors = ConnectionLimit.raiseDescriptorLimit()
        let maxConnections = maxConnections ?? ConnectionLimit.defaultMaximum(descriptorLimit: descriptors)
        let needed = ConnectionLimit.descriptorsNeeded(maximum: maxConnections)
        guard needed <= descriptors else {
            throw Invalid(
                description:
                    "--max-connections \(maxConnections) needs \(needed) open files but this process may have "
                    + "\(descriptors) (raise `ulimit -n` or lower --max-connections)")
        }
        return HTTPServer.Limits(
            headTimeout: Self.timeAmount(headerTimeout), bodyIdleTimeout: Self.timeAmount(bodyIdleTimeout),
            sendTimeout: Self.timeAmount(sendTimeout), minimumUploadRate: minUploadRate,
            maxConnections: maxConnections,
            monitoringPaths: Set([ServiceRoute.health, .readiness, .metrics].map(\.route.pattern)))
    }

    /// The caps on event streams for a server of `maxConnections` connections. An explicit `maxStreams`
    /// that would leave no connection for other requests is refused.
    func streamLimits(maxConnections: Int) throws -> EventStreamSlots.Limits {
        if let maxStreams, maxStreams >= maxConnections {
            throw Invalid(
                description:
                    "--max-streams \(maxStreams) must be less than --max-connections \(maxConnections), so that "
                    + "event streams leave connections for other requests")
        }
        let overall = maxStreams ?? max(1, maxConnections / 2)
        return EventStreamSlots.Limits(
            overall: overall, perClient: maxStreamsPerClient ?? max(1, min(32, overall / 4)))
    }

    /// Seconds as a `TimeAmount`, saturated so that a duration of years cannot overflow nanoseconds.
    static func timeAmount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(min(max(0, seconds), Double(Int64.max / 1_000_000_000 - 1)) * 1e9))
    }
}
