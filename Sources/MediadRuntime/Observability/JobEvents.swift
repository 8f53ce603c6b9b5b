import Foundation
import JobStore
import Logging
import MediaCore
import MediaJobs

/// Reports each change of a job's state: one log line (id, kind, from → to, attempt, error code) and, at
/// a final state, the job counters, the duration histogram and the worker-crash counter.
package struct JobEvents: Sendable {
    package let logger: Logger

    /// Error codes of a worker process that died on its own (not one the supervisor killed).
    package static let crashCodes: Set<String> = [
        MediaError.Code.workerCrashed.rawValue, MediaError.Code.outOfMemory.rawValue,
    ]

    /// `record` has just moved from `previous` (nil: it was just created) to `record.state`.
    package func changed(_ record: JobRecord, from previous: JobState?) {
        var metadata: Logger.Metadata = [
            "job_id": .string(record.id), "kind": .string(record.kind.rawValue),
            "from": .string(previous?.rawValue ?? "new"), "to": .string(record.state.rawValue),
            "attempt": .stringConvertible(record.attempts),
        ]
        if let error = record.error { metadata["error_code"] = .string(error.code) }
        let level: Logger.Level = record.state == .failed ? .warning : .info
        logger.log(level: level, "job \(previous?.rawValue ?? "new") → \(record.state.rawValue)", metadata: metadata)
        guard record.state.isTerminal else { return }
        let ran = record.startedAt.map { start in
            Duration.milliseconds(Int64(((record.finishedAt ?? Date()).timeIntervalSince(start) * 1000).rounded()))
        }
        JobMetrics.jobFinished(kind: record.kind.rawValue, state: record.state.rawValue, ran: ran)
        if let code = record.error?.code, Self.crashCodes.contains(code) {
            JobMetrics.workerCrashed(kind: record.kind.rawValue)
        }
    }
}
