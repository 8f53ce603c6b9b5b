import Glibc
import NIOCore
import Synchronization

/// How many client connections the server serves at once (`--max-connections`), and the few it takes
/// past that for the monitoring paths alone.
///
/// Every connection holds a descriptor (two while it streams a file), a task and buffers; without a cap,
/// a few hundred clients that never finish their requests use up the descriptors and the server stops
/// answering anyone, `/healthz` included. Past the cap, `monitoringReserve` more connections are served one
/// request each, and only if it asks for a monitoring path (`/healthz`, `/readyz`, `/metrics`): a server whose
/// every place is taken by event streams or busy clients still tells its liveness probe that it is alive.
/// Past the reserve too, a connection gets an immediate 503 `server_busy` and is closed
/// (`OverCapacityResponder`), so the ones already admitted keep being served.
package final class ConnectionLimit: Sendable {
    /// How a new connection is served.
    package enum Admission {
        /// Every request, as long as the client keeps the connection.
        case served
        /// One request, answered only if it is for a monitoring path (else 503 `server_busy`).
        case monitoringOnly
        /// None: 503 `server_busy` before the request is read.
        case refused
    }

    package let maximum: Int
    private let open = Atomic<Int>(0)
    private let reserved = Atomic<Int>(0)

    /// Connections past the cap that the monitoring paths may still have.
    package static let monitoringReserve = 8

    package init(maximum: Int) {
        self.maximum = maximum
    }

    /// Takes a place for a new connection, under the cap or in the reserve, and gives it back when the
    /// channel closes.
    package func admit(_ channel: any Channel) -> Admission {
        if Self.take(open, upTo: maximum) {
            channel.closeFuture.whenComplete { [self] _ in open.wrappingSubtract(1, ordering: .relaxed) }
            return .served
        }
        if Self.take(reserved, upTo: Self.monitoringReserve) {
            channel.closeFuture.whenComplete { [self] _ in reserved.wrappingSubtract(1, ordering: .relaxed) }
            return .monitoringOnly
        }
        return .refused
    }

    /// Adds one to `count` unless that takes it past `limit`.
    private static func take(_ count: borrowing Atomic<Int>, upTo limit: Int) -> Bool {
        let (_, taken) = count.wrappingAdd(1, ordering: .relaxed)
        guard taken <= limit else {
            count.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Descriptors kept aside for the store, workers' pipes, probe children and the listening socket.
    package static let reservedDescriptors = 64

    /// Descriptors `maximum` connections may need: two each, one for each monitoring connection, and the
    /// server's own.
    package static func descriptorsNeeded(maximum: Int) -> Int {
        maximum * 2 + monitoringReserve + reservedDescriptors
    }

    /// The default cap: 1024, or fewer when the descriptor limit cannot give each connection two
    /// descriptors besides the monitoring connections' and the server's own.
    package static func defaultMaximum(descriptorLimit: Int) -> Int {
        max(1, min(1024, (descriptorLimit - reservedDescriptors - monitoringReserve) / 2))
    }

    /// Raises this process's soft limit on open descriptors to its hard limit (as most servers do: the
    /// soft default of 1024 is a leftover of `select`), and returns the limit now in force.
    package static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
