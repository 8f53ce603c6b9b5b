import ArgumentParser
import MediadRuntime

/// `mediad worker`: runs the jobs of a server's data directory that the server sends on stdin, one after
/// another, for `mediad serve`.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run queued jobs of a data directory under resource limits (started by serve).",
        discussion: """
            mediad serve starts workers and sends each job as a line "<job id> <CPU seconds> <max output> \
            <disk headroom> <quota remaining>" on stdin (bytes the job may write by each limit, - for none). \
            A worker sets its limits before it opens any input (--cpu-time limits its whole life; each job \
            gets its CPU seconds on top of what the process has used), runs the jobs in turn, appends \
            libav's log to each job's log and reports progress and each outcome as JSON lines on stdout. \
            It reads a job's record but never writes it, and exits at the end of stdin.
            """)

    @Option(help: "The server's data directory.")
    var dataDir: String

    @OptionGroup var limitOptions: WorkerLimitOptions

    @Option(help: "Free bytes the job's outputs leave on the data directory's disk (0: no reserve).")
    var minFreeDisk: Int64 = 0

    func run() throws {
        JobWorker.serve(dataDirectory: dataDir, limits: limitOptions.limits, minimumFreeBytes: minFreeDisk)
    }
}
