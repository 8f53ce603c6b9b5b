import JobStore
import Synchronization

/// The jobs this server knows, by id, with the live progress of those running here, and the bytes each
/// owner's jobs store (inputs and outputs), kept up to date with every record published so that a quota
/// check never reads the disk.
///
/// `JobService` (with its scheduler and run tracker, on its actor) is its only writer; anyone may read it from
/// any thread, so that a status request for a job answers from here without waiting for the service's
/// actor (which is busy with uploads finishing, runs starting and ending). A read sees a whole record as last published — never a half-made one.
package final class JobIndex: Sendable {
    private struct Contents {
        var records: [String: JobRecord] = [:]
        var runs: [String: RunningJob] = [:]
        /// Inputs and outputs of each owner's jobs (nil: jobs made without a token).
        var stored: [String?: Int64] = [:]

        mutating func count(_ record: JobRecord?, _ sign: Int64) {
            guard let record else { return }
            let bytes = record.inputs.reduce(0) { $0 + $1.size } + record.outputs.reduce(0) { $0 + $1.size }
            stored[record.owner, default: 0] += sign * bytes
            if stored[record.owner] == 0 { stored[record.owner] = nil }
        }
    }

    private let contents = Mutex(Contents())
    /// Signalled after every record published or forgotten (not after progress, which runs report live).
    package let changes = JobChanges()

    /// The record as last published (without live progress); setting nil forgets the job.
    package subscript(id: String) -> JobRecord? {
        get { contents.withLock { $0.records[id] } }
        set {
            let changed = contents.withLock { contents in
                let old = contents.records[id]
                guard old != newValue else { return false }
                contents.count(old, -1)
                contents.count(newValue, 1)
                contents.records[id] = newValue
                return true
            }
            if changed { changes.publish() }
        }
    }

    /// Every record, in no order.
    package var all: [JobRecord] { contents.withLock { Array($0.records.values) } }

    /// Each job's state, for comparing with what a store holds.
    package var states: [String: JobState] { contents.withLock { $0.records.mapValues(\.state) } }

    /// The bytes the inputs and outputs of `owner`'s jobs hold (nil: the jobs made without a token).
    package func storedBytes(of owner: String?) -> Int64 {
        contents.withLock { $0.stored[owner] ?? 0 }
    }

    /// Records published for the jobs matching `isIncluded`.
    package func count(where isIncluded: (JobRecord) -> Bool) -> Int {
        contents.withLock { $0.records.values.count(where: isIncluded) }
    }

    /// The record with the progress its run reports now, if it runs here.
    package func current(_ id: String) -> JobRecord? {
        contents.withLock { contents in
            guard var record = contents.records[id] else { return nil }
            if record.state == .running, let run = contents.runs[id] { record.progress = run.progress }
            return record
        }
    }

    /// Every record with live progress.
    package var allCurrent: [JobRecord] {
        contents.withLock { contents in
            contents.records.values.map { record in
                guard record.state == .running, let run = contents.runs[record.id] else { return record }
                var current = record
                current.progress = run.progress
                return current
            }
        }
    }

    /// Where the progress of a job running here comes from, until `runEnded`.
    package func runStarted(_ id: String, _ run: RunningJob) {
        contents.withLock { $0.runs[id] = run }
    }

    package func runEnded(_ id: String) {
        contents.withLock { $0.runs[id] = nil }
    }
}
