import Foundation
import JobStore
import MediaCore

/// One line of JSON a worker process writes on its stdout for the server: progress while the job runs,
/// then exactly one final line with the result or the error. In `JobJSON`'s style, as everything mediad
/// writes.
package struct WorkerMessage: Codable, Sendable, Equatable {
    /// The job's progress from 0 to 1.
    package var progress: Double?
    /// Set on the final line of a job (`job`) or probe (`probe`) that succeeded.
    package var succeeded: Success?
    /// Set on the final line of a job that failed.
    package var failed: Failure?

    /// What a worker that succeeded reports: exactly one of the two.
    package struct Success: Codable, Sendable, Equatable {
        /// A job's typed result and its outputs' digests.
        var job: JobExecutor.Outcome?
        /// A probe's description of the file, capped for reporting.
        var probe: MediaInfo?
    }

    package struct Failure: Codable, Sendable, Equatable {
        var code: String
        var message: String
    }

    /// The message as one line, newline included.
    package func line() -> Data {
        var data = (try? JobJSON.encoder().encode(self)) ?? Data("{}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Parses one line; nil for anything that is not a message (a worker's stray output).
    package static func parse(_ line: Data) -> WorkerMessage? {
        try? JobJSON.decoder().decode(WorkerMessage.self, from: line)
    }
}
