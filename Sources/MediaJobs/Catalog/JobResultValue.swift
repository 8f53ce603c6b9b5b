/// A job's result as its kind's own `Result` type, for records and worker reports.
///
/// Encodes as the kind's result does. Decoding needs the kind: use `JobKind.decodeResult(from:)`.
public struct JobResultValue: Sendable, Equatable, Encodable {
    public let kind: JobKind
    /// The kind's typed result.
    public let value: any JobResult

    public init<Result: JobResult>(_ value: Result, kind: JobKind) {
        self.kind = kind
        self.value = value
    }

    /// Output file names, in the order the job reports them.
    public var outputs: [String] { value.outputs }

    public var warnings: [String] { value.warnings }

    public func encode(to encoder: Swift.Encoder) throws { try value.encode(to: encoder) }

    public static func == (lhs: JobResultValue, rhs: JobResultValue) -> Bool {
        lhs.kind == rhs.kind && lhs.value.isEqual(to: rhs.value)
    }
}
