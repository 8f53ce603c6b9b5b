import Foundation
import MediaCore
import MediaJobs
import Testing

@testable import MediadRuntime

/// How a worker names its failure: for want of memory, `out_of_memory`, whatever code it had before.
/// `MemoryLimitTests` drives real jobs into their limit; these pin the rule.
struct WorkerClassificationTests {
    @Test func libavOutOfMemoryBecomesOutOfMemory() {
        let error = MediaError(.internalError, "allocating a packet: \(String(cString: strerror(ENOMEM)))")
        #expect(JobWorker.classify(error, allocations: .current).code == "out_of_memory")
    }

    @Test func otherFailuresKeepTheirCode() {
        #expect(JobWorker.classify(MediaError(.invalidInput, "no moov"), allocations: .current).code == "invalid_input")
        #expect(JobWorker.classify(MediaError(.cancelled, "stop"), allocations: .current).code == "cancelled")
    }

    /// A failed allocation anywhere in the process is counted by the allocator wrapper, whoever asked: a
    /// library that reports it as a generic error (x264's "Generic error in an external library") is
    /// named `out_of_memory` with the size that failed.
    @Test func aFailedAllocationMakesAnyFailureOutOfMemory() throws {
        let before = AllocationFailures.current
        // More than any address space: glibc refuses it, the wrapper counts it.
        let size = 1 << 62
        #expect(malloc(size) == nil)
        let after = AllocationFailures.current
        #expect(after.count > before.count)
        #expect(after.lastSize == size)
        let failure = JobWorker.classify(
            MediaError(.internalError, "encoding h264: Generic error in an external library"), allocations: before)
        #expect(failure.code == "out_of_memory")
        #expect(failure.message.contains("allocation") && failure.message.contains("Generic error"), "\(failure)")
        #expect(JobWorker.classify(MediaError(.invalidInput, "no moov"), allocations: after).code == "invalid_input")
    }

    /// A worker that dies after an allocation failed (the Swift runtime aborts then) left the wrapper's
    /// line on its stderr: `out_of_memory`, not `worker_crashed`; without it the crash is a crash.
    @Test func aCrashAfterAFailedAllocationIsOutOfMemory() {
        let limits = WorkerLimits(memory: 1 << 30, maxOutput: 1 << 30, cpuSeconds: 60)
        let stderr = "mediad: an allocation of 553648064 bytes failed (out of memory)\nFatal error: failed to allocate"
        #expect(
            WorkerChild.End.signal(SIGABRT).failure(doing: "the job", stderr: stderr, limits: limits).code
                == .outOfMemory)
        #expect(
            WorkerChild.End.signal(SIGABRT).failure(doing: "the job", stderr: "", limits: limits).code == .workerCrashed
        )
        #expect(
            WorkerChild.End.signal(SIGXCPU).failure(doing: "the job", stderr: stderr, limits: limits).code == .timeout)
    }

    @Test func messagesRoundTripAsLines() throws {
        let message = WorkerMessage(failed: .init(code: "timeout", message: "slow"))
        let line = message.line()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(WorkerMessage.parse(line.dropLast()) == message)
        #expect(WorkerMessage.parse(Data("not json".utf8)) == nil)
    }

    @Test func timeoutGrowsWithInputBetweenFloorAndCeiling() {
        var settings = IsolationSettings()
        settings.timeoutFloor = 60
        settings.timeoutCeiling = 600
        #expect(settings.timeout(inputBytes: 0) == 60)
        #expect(settings.timeout(inputBytes: 1_600_000) == 160)
        #expect(settings.timeout(inputBytes: 1 << 40) == 600)
        // A transcode encodes: ten times the size-based part, within the same ceiling.
        #expect(JobKind.transcode.timeScale == 10 && JobKind.remux.timeScale == 1)
        #expect(settings.timeout(inputBytes: 160_000, scale: JobKind.transcode.timeScale) == 160)
        #expect(settings.timeout(inputBytes: 1_600_000, scale: JobKind.transcode.timeScale) == 600)
    }
}
