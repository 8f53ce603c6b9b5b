import Foundation
import JobStore
import Logging
import MediaCore
import Synchronization

/// The log file of one job (`job.log`): mediad's own lines about the job and libav's log lines
/// emitted on the thread that runs it.
///
/// libav logs through one process-wide callback; the worker thread running a job registers the job's log
/// as its thread-local destination, and `JobLog.install()` routes each line to the log of the thread
/// that emitted it (errors from no job's thread go to the server's log). Lines libav emits on its own helper threads
/// (frame-threaded decoding) are not attributed to a job.
package final class JobLog: Sendable {
    private let handle: Mutex<FileHandle?>

    /// Opens the log for appending, creating it when it is missing. The server and a worker process write
    /// the same file at once (the server's "started in worker" line races the worker's first lines), so
    /// every write must land at the end: `O_APPEND`, and creation in place (`O_CREAT`) rather than by a
    /// rename that would leave the other writer on an unlinked file.
    package init(path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        handle = Mutex(descriptor >= 0 ? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true) : nil)
    }

    package func write(_ line: String) {
        let stamped = "\(JobJSON.rfc3339(Date())) \(line)\n"
        handle.withLock { $0?.write(Data(stamped.utf8)) }
    }

    package func close() {
        handle.withLock {
            try? $0?.close()
            $0 = nil
        }
    }

    /// Runs `body` with this log as the destination of libav lines logged on the current thread.
    package func capturing<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(JobLog.threadKey)
        pthread_setspecific(JobLog.threadKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(JobLog.threadKey, previous) }
        return try body()
    }

    /// The log registered by the current thread, if any.
    package static var current: JobLog? {
        pthread_getspecific(threadKey).map { Unmanaged<JobLog>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Routes libav's log lines (warnings and errors, or everything with `verbose`) to the job logs, and
    /// errors logged outside any job to `unattributed`.
    package static func install(verbose: Bool, unattributed: Logger) {
        LibavLog.configure(level: verbose ? 40 : 24) { level, line in
            if let log = JobLog.current {
                log.write("libav: \(line)")
            } else if level <= 16 {
                unattributed.error("\(line)")
            }
        }
    }
}
