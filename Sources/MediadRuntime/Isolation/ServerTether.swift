import Foundation

/// Ties a process the server started (a job worker, a probe) to the server's life.
///
/// A server that dies (killed, crashed) leaves its children running. A worker would carry on writing
/// into a job directory that the restarted server (or, in a shared store, another replica once the lease
/// lapses) is already retrying, and its next progress line would
/// go to a pipe nobody reads: SIGPIPE is ignored in the server and so in its children, the write fails
/// with EPIPE, and Foundation's `FileHandle.write` turns that into a runtime trap (SIGILL). So the server
/// puts its pid in each child's environment, and the child kills itself (SIGKILL, as the server's own
/// watchdog would) as soon as that process is no longer its parent.
public enum ServerTether {
    /// The environment variable carrying the server's pid.
    package static let environmentKey = "MEDIAD_SERVER_PID"

    /// How often the child looks at its parent.
    package static let pollInterval: useconds_t = 100_000

    /// `environment` with this process marked as the server of the child it is for.
    package static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.merging([environmentKey: String(getpid())]) { $1 }
    }

    /// In a process started by a server: watches the server and dies with it. Elsewhere (a command typed
    /// by a user, a test) it does nothing.
    public static func holdIfStartedByServer() {
        guard let text = ProcessInfo.processInfo.environment[environmentKey], let server = pid_t(text) else {
            return
        }
        // Checked here before anything runs, not only on the watcher: a short command (a probe) could
        // finish before a new thread is first scheduled.
        if getppid() != server { kill(getpid(), SIGKILL) }
        let watcher = Thread {
            while getppid() == server { usleep(pollInterval) }
            kill(getpid(), SIGKILL)
        }
        watcher.name = "server-tether"
        watcher.start()
    }
}
