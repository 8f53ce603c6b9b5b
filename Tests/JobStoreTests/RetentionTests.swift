import Foundation
import JobStore
import Testing

@Suite struct RetentionTests {
    @Test func expiresOnlyTerminalJobsPastTheLimit() {
        let now = StoreFixtures.epoch.addingTimeInterval(30 * 86400)
        let day: TimeInterval = 86400
        func job(_ state: JobState, finishedDaysAgo: Double?) -> JobRecord {
            var record = StoreFixtures.record(state: state)
            record.finishedAt = finishedDaysAgo.map { now.addingTimeInterval(-$0 * day) }
            return record
        }
        let oldSuccess = job(.succeeded, finishedDaysAgo: 10)
        let oldFailure = job(.failed, finishedDaysAgo: 7.01)
        let oldCancel = job(.cancelled, finishedDaysAgo: 8)
        let recentSuccess = job(.succeeded, finishedDaysAgo: 1)
        let justInside = job(.failed, finishedDaysAgo: 6.99)
        let terminalWithoutEnd = job(.failed, finishedDaysAgo: nil)  // created 30 days before `now`
        let oldQueued = job(.queued, finishedDaysAgo: nil)
        let oldRunning = job(.running, finishedDaysAgo: nil)
        let records = [
            oldSuccess, oldFailure, oldCancel, recentSuccess, justInside, terminalWithoutEnd, oldQueued, oldRunning,
        ]

        let expired = Retention.expired(records, olderThan: 7 * day, now: now)
        #expect(expired == [oldSuccess.id, oldFailure.id, oldCancel.id, terminalWithoutEnd.id])
        #expect(Retention.expired(records, olderThan: 365 * day, now: now).isEmpty)
    }
}
