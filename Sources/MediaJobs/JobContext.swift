import MediaCore

/// What a running job may report to, and ask of, whoever runs it.
public struct JobContext: Sendable {
    /// Receives progress from 0 to 1; called often, so keep it cheap.
    public var reportProgress: @Sendable (Double) -> Void
    /// Polled between packets; when it returns true the job stops with `cancelled`.
    public var isCancelled: @Sendable () -> Bool

    public init(
        reportProgress: @escaping @Sendable (Double) -> Void = { _ in },
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) {
        self.reportProgress = reportProgress
        self.isCancelled = isCancelled
    }

    /// Throws `cancelled` if the caller asked the job to stop.
    public func checkCancellation() throws {
        if isCancelled() { throw MediaError(.cancelled, "the job was cancelled") }
    }
}

/// What every job returns: the files it wrote and anything the user should know about them.
public protocol JobResult: Codable, Sendable {
    /// Paths of the files written, primary output first.
    var outputs: [String] { get }
    /// Things that were not errors but changed or dropped something (e.g. rotation MKV cannot store).
    var warnings: [String] { get }
}
