import Glibc
import NIOCore
import Synchronization

/// How many client connections the server serves at once (`--max-connections`).
///
/// Every connection holds a descriptor (two while it streams a file), a task and buffers; without a cap,
/// a few hundred clients that never finish their requests use up the descriptors and the server stops
/// answering anyone, `/healthz` included. Past the cap a connection gets an immediate 503 `server_busy`
/// and is closed (`OverCapacityResponder`), so the ones already admitted keep being served.
package final class ConnectionLimit: Sendable {
    package let maximum: Int
    private let open = Atomic<Int>(0)

    package init(maximum: Int) {
        self.maximum = maximum
    }

    /// Takes a place for a new connection, and gives it back when the channel closes; false when full.
    package func admit(_ channel: any Channel) -> Bool {
        let (_, count) = open.wrappingAdd(1, ordering: .relaxed)
        guard count <= maximum else {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        channel.closeFuture.whenComplete { [self] _ in open.wrappingSubtract(1, ordering: .relaxed) }
        return true
    }

    /// Descriptors kept aside for the store, workers' pipes, probe children and the listening socket.
    package static let reservedDescriptors = 64

    /// The default cap: 1024, or fewer when the descriptor limit cannot give each connection two
    /// descriptors besides the reserve.
    package static func defaultMaximum(descriptorLimit: Int) -> Int {
        max(1, min(1024, (descriptorLimit - reservedDescriptors) / 2))
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
