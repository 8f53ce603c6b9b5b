import Foundation
import ServiceLifecycle
import Synchronization

/// SIGTERM and SIGINT as a graceful shutdown of the service group, through a handler of the server's own
/// rather than the group's `gracefulShutdownSignals`.
///
/// Why: the group's signals come from libdispatch signal sources, which on Linux read a signalfd, and a
/// signalfd sees a signal only while it is pending. Every thread libdispatch and NIO start blocks both
/// signals; the main thread does not, so it took each SIGTERM, and libdispatch's handler sent it on to the
/// one thread that had registered the source, where a read of the signalfd by any other thread does not
/// see it (strace shows the hop). That is the likely cause of two servers seen outliving their SIGTERM in
/// full test runs under load: a replica told to drain with a 0.2 s grace finished its job 49 s later, and
/// a server with an event stream open took ten minutes to stop. The main thread cannot simply block the
/// signals as well: on Linux the async main leaves it running no job of ours, so the server has no point
/// from which to change its mask.
///
/// Here the handler, on whichever thread takes the signal, writes a byte into a pipe; a thread of its own
/// reads the pipe and asks the group to shut down. A second signal asks again, which changes nothing.
enum ShutdownSignals {
    /// The pipe's writing end, for the handler (which can capture nothing); -1 until `install`.
    private static let writer = Atomic<Int32>(-1)

    /// Makes SIGTERM and SIGINT shut `group` down gracefully. Called once, before the group runs, so the
    /// port is announced only once a signal is handled.
    static func install(_ group: ServiceGroup) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw ServerConfiguration.Invalid(description: "cannot make the pipe for SIGTERM: errno \(errno)")
        }
        // Kept out of the workers spawned from here on.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        writer.store(ends[1], ordering: .releasing)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // Only async-signal-safe calls here: write(2), and errno kept as the interrupted code had it.
            let saved = errno
            var byte: UInt8 = 1
            _ = write(ShutdownSignals.writer.load(ordering: .acquiring), &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        let reader = ends[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 {
                    Task { await group.triggerGracefulShutdown() }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
