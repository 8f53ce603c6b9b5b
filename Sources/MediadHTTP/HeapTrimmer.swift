import CMalloc
import Synchronization

/// Gives the memory of closed connections back to the system.
///
/// Connections read into buffers of up to 64 KiB from malloc, and the async channel keeps several per
/// connection while a handler is busy; glibc keeps freed blocks of that size in its arenas rather than
/// unmapping them. After 200 stalled uploads were cut off, 170 MB stayed resident that way (and 1.4 GB
/// after 1000). A second after connections close, `malloc_trim` hands the free pages back; closes that
/// come meanwhile share that one trim, so a busy server trims at most once a second.
package final class HeapTrimmer: Sendable {
    private let scheduled = Atomic<Bool>(false)
    private let delay: Duration

    package init(delay: Duration = .seconds(1)) {
        self.delay = delay
    }

    /// A connection has closed: trim in `delay`, unless a trim is already due.
    package func connectionClosed() {
        guard scheduled.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        Task.detached(priority: .background) { [self] in
            try? await Task.sleep(for: delay)
            scheduled.store(false, ordering: .relaxed)
            malloc_trim(0)
        }
    }
}
