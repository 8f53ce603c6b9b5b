import Foundation
import JobStore
import Testing

@Suite struct RecoveryTests {
    static let now = StoreFixtures.epoch.addingTimeInterval(3600)

    static func running(attempts: Int) -> JobRecord {
        var record = StoreFixtures.record(state: .running)
        record.attempts = attempts
        record.progress = 0.7
        record.startedAt = StoreFixtures.epoch.addingTimeInterval(10)
        return record
    }

    @Test func queuedAndTerminalJobsStayAsTheyAre() {
        for state in [JobState.queued, .succeeded, .failed, .cancelled] {
            var record = StoreFixtures.record(state: state)
            record.attempts = 5
            #expect(Recovery.recover(record, now: Self.now) == record)
        }
    }

    @Test func anInterruptedRunIsQueuedAgain() {
        for attempts in [1, 2] {
            let record = Self.running(attempts: attempts)
            let recovered = Recovery.recover(record, now: Self.now)
            #expect(recovered.state == .queued)
            #expect(recovered.progress == 0)
            #expect(recovered.startedAt == nil)
            #expect(recovered.attempts == attempts)
            #expect(recovered.finishedAt == nil && recovered.error == nil)
        }
    }

    @Test func givesUpAfterThreeInterruptedRuns() {
        let recovered = Recovery.recover(Self.running(attempts: 3), now: Self.now)
        #expect(recovered.state == .failed)
        #expect(recovered.finishedAt == Self.now)
        #expect(recovered.attempts == 3)
        #expect(recovered.error?.code == "interrupted")
        #expect(recovered.error?.message == "the job was interrupted 3 times (server restarts) and was given up")
    }

    @Test func theLimitIsConfigurable() {
        #expect(Recovery.recover(Self.running(attempts: 1), maxAttempts: 1, now: Self.now).state == .failed)
        #expect(Recovery.recover(Self.running(attempts: 4), maxAttempts: 5, now: Self.now).state == .queued)
    }

    /// The request that carried an arriving input ended with the server: the job never runs on part of it.
    @Test func aJobWhoseInputWasStillArrivingFails() {
        for state in [JobState.queued, .running] {
            var record = state == .running ? Self.running(attempts: 1) : StoreFixtures.record(state: .queued)
            record.arrivingInputs = [ArrivingInput(name: "input", size: 1000)]
            let recovered = Recovery.recover(record, now: Self.now)
            #expect(recovered.state == .failed)
            #expect(recovered.finishedAt == Self.now)
            #expect(recovered.error?.code == "interrupted")
        }
    }
}
