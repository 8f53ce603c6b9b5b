import Foundation

/// Runs blocking work, such as waiting for a child process, on a thread started for it alone.
///
/// NIO's shared blocking pool has as many threads as cores, and uploads and the store queue on it: work
/// that waits seconds for a child there (a probe) stalled every submission behind it. A thread per call
/// costs a few hundred kilobytes of stack for the call's length; callers bound how many run at once
/// (`ProbeSlots`).
package enum DedicatedThread {
    /// `body`'s result, computed on a new thread named `name`; the caller's task suspends meanwhile.
    package static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = name
            thread.start()
        }
    }
}
