import Foundation
import JobStore

/// One line of JSON a worker process writes on its stdout for the server: progress while the job runs,
/// then exactly one final line with the result or the error.
struct WorkerMessage: Codable, Sendable, Equatable {
    /// The job's progress from 0 to 1.
    var progress: Double?
    /// Set on the final line of a job that succeeded.
    var succeeded: Success?
    /// Set on the final line of a job that failed.
    var failed: Failure?

    struct Success: Codable, Sendable, Equatable {
        var warnings: [String]
        var result: JSONValue
    }

    struct Failure: Codable, Sendable, Equatable {
        var code: String
        var message: String
    }

    /// The message as one line, newline included.
    func line() -> Data {
        var data = (try? JSONEncoder().encode(self)) ?? Data("{}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Parses one line; nil for anything that is not a message (a worker's stray output).
    static func parse(_ line: Data) -> WorkerMessage? {
        try? JSONDecoder().decode(WorkerMessage.self, from: line)
    }
}
