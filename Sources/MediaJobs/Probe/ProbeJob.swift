import MediaCore

/// Reports what is inside a media file: container, duration, size and every track's parameters.
public struct ProbeJob: Sendable {
    /// Probe reads every format mediad knows.
    public static let acceptedInputs = InputContainer.allCases

    public var input: String

    public init(input: String) { self.input = input }

    public func run(_ context: JobContext = JobContext()) throws -> MediaInfo {
        let source = try InputFile(path: input, accepting: Self.acceptedInputs, policy: .streamCopy)
        try context.checkpoint()
        try source.findStreamInfo()
        context.reportProgress(1)
        return MediaInfo(describing: source)
    }
}
