import Foundation
import JobStore
import MediaJobs
import Testing

@testable import MediadRuntime

/// The index status requests read without the job service's actor: whole records, live progress.
@Suite struct JobIndexTests {
    func record(_ state: JobState) -> JobRecord {
        JobRecord(
            id: JobStore.newID(), state: state, createdAt: Date(timeIntervalSince1970: 1_795_000_000),
            options: try! JobKind.remux.options(parsing: ["format": "mkv"]), inputs: [])
    }

    @Test func aRunningJobShowsItsLiveProgressUntilItsRunEnds() {
        let index = JobIndex()
        let job = record(.running)
        let run = RunningJob()
        index[job.id] = job
        index.runStarted(job.id, run)
        run.progress = 0.4
        #expect(index.current(job.id)?.progress == 0.4)
        #expect(index.allCurrent.map(\.progress) == [0.4])
        #expect(index[job.id]?.progress == 0, "the published record itself is unchanged")
        index.runEnded(job.id)
        #expect(index.current(job.id)?.progress == 0)
        index[job.id] = nil
        #expect(index.current(job.id) == nil)
    }

    /// Readers on other threads while the writer replaces records see only whole records it published:
    /// every record written has a state that matches the parity of its attempt count.
    @Test func readersSeeOnlyWholeRecords() async {
        let index = JobIndex()
        let first = record(.queued)
        index[first.id] = first
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var job = first
                for step in 1...2000 {
                    job.attempts = step
                    job.state = step % 2 == 0 ? .running : .queued
                    index[job.id] = job
                }
                return true
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<2000 {
                        guard let seen = index.current(first.id) else { return false }
                        if (seen.attempts % 2 == 0) != (seen.state == .running) && seen.attempts > 0 { return false }
                    }
                    return true
                }
            }
            for await whole in group { #expect(whole) }
        }
    }

    /// Subscribers hear of each change (never of a write that changes nothing), hold one pending signal
    /// however many changes come, and are dropped when their stream ends.
    @Test func changesSignalSubscribersWithoutABacklog() async {
        let index = JobIndex()
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        index.changes.subscribe(continuation)
        #expect(index.changes.subscriberCount == 1)
        var job = record(.queued)
        let before = index.changes.generation
        index[job.id] = job
        index[job.id] = job
        #expect(index.changes.generation == before + 1, "writing the same record again is no change")
        for attempt in 1...1000 {
            job.attempts = attempt
            index[job.id] = job
        }
        continuation.finish()
        var pending = 0
        for await _ in signals { pending += 1 }
        #expect(pending == 1, "a thousand changes leave one signal")
        #expect(index.changes.subscriberCount == 0)
    }
}
