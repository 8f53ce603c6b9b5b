import Dispatch
import JobStore
import MediaCore
import Synchronization

/// Stops a running job with `insufficient_storage` when the store's disk drops below its watermark.
///
/// Jobs call `check()` between packets, up to hundreds of thousands of times a second; the disk is asked
/// (`statvfs`, about a microsecond) at most every `interval`, so the check costs a clock read almost
/// always. A millisecond is short enough that even a job writing at disk speed overshoots the reserve by
/// a few megabytes at most. A job stopped this way fails like any other: its partial outputs are removed
/// and the space comes back.
package final class OutputSpaceGuard: Sendable {
    private let watermark: DiskWatermark
    private let intervalNanoseconds: UInt64
    private let nextCheck = Atomic<UInt64>(0)

    package init(_ watermark: DiskWatermark, interval: Duration = .milliseconds(1)) {
        self.watermark = watermark
        intervalNanoseconds =
            UInt64(interval.components.attoseconds / 1_000_000_000)
            + UInt64(interval.components.seconds) * 1_000_000_000
    }

    /// Throws `insufficient_storage` when the disk has less free than the watermark keeps.
    package func check() throws {
        guard watermark.minimumFreeBytes > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = nextCheck.load(ordering: .relaxed)
        guard now >= due,
            nextCheck.compareExchange(expected: due, desired: now + intervalNanoseconds, ordering: .relaxed).exchanged
        else { return }
        do {
            try watermark.check()
        } catch let error as StoreError {
            throw MediaError(
                .insufficientStorage, error.message + "; the job stopped and its partial outputs were removed")
        }
    }
}
