import Foundation
import MediaCore
import MediaJobs
import Testing

@testable import MediadRuntime

/// How a worker names its failure: for want of memory, `out_of_memory`, whatever code it had before.
///
/// No end-to-end test drives a real job into its memory limit: every job mediad has runs in a few MiB, and
/// glibc serves that from heap arenas the worker reserved before its limit was set, so even a limit far
/// below the worker's mapped size lets an encode succeed. These tests pin the rule instead.
struct WorkerClassificationTests {
    @Test func libavOutOfMemoryBecomesOutOfMemory() {
        let error = MediaError(.internalError, "allocating a packet: \(String(cString: strerror(ENOMEM)))")
        #expect(JobWorker.classify(error).code == "out_of_memory")
    }

    @Test func otherFailuresKeepTheirCode() {
        #expect(JobWorker.classify(MediaError(.invalidInput, "no moov")).code == "invalid_input")
        #expect(JobWorker.classify(MediaError(.cancelled, "stop")).code == "cancelled")
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
