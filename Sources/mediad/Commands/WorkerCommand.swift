import ArgumentParser
import MediadRuntime

/// `mediad worker`: runs one job of a server's data directory in this process, for `mediad serve`.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run one queued job of a data directory under resource limits (started by serve).",
        discussion: """
            mediad serve starts one worker per job. The worker sets its limits before it opens any input, \
            appends libav's log to the job's log, and reports progress and the outcome as JSON lines on \
            stdout. It reads the job's record but never writes it.
            """)

    @Argument(help: "The job's id.")
    var job: String

    @Option(help: "The server's data directory.")
    var dataDir: String

    @OptionGroup var limitOptions: WorkerLimitOptions

    @Option(help: "Free bytes the job's outputs leave on the data directory's disk (0: no reserve).")
    var minFreeDisk: Int64 = 0

    func run() throws {
        JobWorker.run(
            dataDirectory: dataDir, id: job,
            limits: limitOptions.limits,
            minimumFreeBytes: minFreeDisk)
    }
}
