import CAllocationWatch

/// The allocations that failed in this process, as the allocator wrapper of `CAllocationWatch` counts
/// them: the one sign of running out of memory that does not depend on who allocated.
///
/// A worker under `--job-memory` runs out when the kernel refuses a mapping, and what the job reports then
/// depends on the caller: libav returns ENOMEM, x264, x265 and SVT-AV1 fail their open with "Generic error
/// in an external library", the Swift runtime traps. The worker compares the count at a job's end with its
/// start (`JobWorker.classify`); a worker that crashed leaves the wrapper's line on its stderr
/// (`stderrMarker`), which the server reads (`WorkerChild.End.failure`).
package struct AllocationFailures: Equatable, Sendable {
    /// Failed allocations so far.
    package var count: UInt
    /// The size of the last one, in bytes.
    package var lastSize: Int

    /// The counts now.
    package static var current: AllocationFailures {
        AllocationFailures(count: mediad_failed_allocations(), lastSize: mediad_last_failed_allocation())
    }

    /// Lets the next failure write its stderr line again, for the job starting now.
    package static func rearmReport() { mediad_rearm_allocation_report() }

    /// The start of the line a failure writes to stderr: `mediad: an allocation of N bytes failed`.
    package static let stderrMarker = "mediad: an allocation of"

    /// What failed since `baseline`, for a message: "an allocation of 251.0 MiB failed", "3 allocations
    /// failed, the last of 12 bytes"; nil when none did.
    package func failures(since baseline: AllocationFailures) -> String? {
        guard count > baseline.count else { return nil }
        let megabytes = (Double(lastSize) / 1_048_576 * 10).rounded() / 10
        let size = lastSize >= 1_048_576 ? "\(megabytes) MiB" : "\(lastSize) bytes"
        let failed = count - baseline.count
        return failed == 1 ? "an allocation of \(size) failed" : "\(failed) allocations failed, the last of \(size)"
    }
}
