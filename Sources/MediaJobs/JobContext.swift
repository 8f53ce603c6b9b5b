import MediaCore

/// What a running job may report to, and ask of, whoever runs it.
public struct JobContext: Sendable {
    /// Receives progress from 0 to 1; called often, so keep it cheap.
    public var reportProgress: @Sendable (Double) -> Void
    /// Polled between packets; when it returns true the job stops with `cancelled`.
    public var isCancelled: @Sendable () -> Bool
    /// Polled between packets too; throws to stop the job when a resource it writes to runs short (the
    /// server's free-disk watermark). It should be cheap, as it is called for every packet.
    public var checkResources: @Sendable () throws -> Void
    /// What the job may write; a kind that can tell its outputs' size before it decodes checks it then.
    public var outputAllowance: OutputAllowance

    public init(
        reportProgress: @escaping @Sendable (Double) -> Void = { _ in },
        isCancelled: @escaping @Sendable () -> Bool = { false },
        checkResources: @escaping @Sendable () throws -> Void = {},
        outputAllowance: OutputAllowance = OutputAllowance()
    ) {
        self.reportProgress = reportProgress
        self.isCancelled = isCancelled
        self.checkResources = checkResources
        self.outputAllowance = outputAllowance
    }

    /// Called between packets: throws `cancelled` if the caller asked the job to stop, or the error of
    /// `checkResources`.
    public func checkpoint() throws {
        if isCancelled() { throw MediaError(.cancelled, "the job was cancelled") }
        try checkResources()
    }
}
