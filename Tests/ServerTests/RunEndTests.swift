import JobStore
import MediaCore
import Testing

@testable import MediadRuntime

/// How a run's outcome and stop request become the job's end and its word in the `runs` file.
@Suite struct RunEndTests {
    struct Unexpected: Error {}

    @Test func aLostLeaseOutweighsWhateverTheRunDid() {
        #expect(RunEnd(.failure(MediaError(.invalidInput, "no moov")), stop: .leaseLost).event == "lost")
        #expect(RunEnd(.failure(Unexpected()), stop: .leaseLost).event == "lost")
    }

    @Test func aRunThatFailsAfterAShutdownStopIsRequeuedNotFailed() {
        #expect(RunEnd(.failure(MediaError(.cancelled, "stop")), stop: .shutdown).event == "requeued")
    }

    @Test func aCancelledRunEndsCancelled() {
        #expect(RunEnd(.failure(MediaError(.cancelled, "stop")), stop: .cancelledByUser).event == "cancelled")
    }

    @Test func aFailureKeepsItsMediaErrorCodeAndAnyOtherErrorIsInternal() {
        guard case .failed(let error) = RunEnd(.failure(MediaError(.invalidInput, "no moov")), stop: .none) else {
            Issue.record("not failed")
            return
        }
        #expect(error == JobError(code: "invalid_input", message: "no moov"))
        guard case .failed(let other) = RunEnd(.failure(Unexpected()), stop: .none) else {
            Issue.record("not failed")
            return
        }
        #expect(other.code == "internal_error")
        #expect(RunEnd(.failure(Unexpected()), stop: .none).event == "failed")
    }
}
