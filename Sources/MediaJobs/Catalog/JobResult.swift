/// What every job returns: the files it wrote and anything the user should know about them.
public protocol JobResult: Codable, Sendable, Equatable {
    /// The files written, primary output first: paths from a job's own `run`, file names in a
    /// `JobResultValue`.
    var outputs: [String] { get set }
    /// Things that were not errors but changed or dropped something (e.g. rotation MKV cannot store).
    var warnings: [String] { get }
}

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

    /// Output file names, primary first.
    public var outputs: [String] { value.outputs }

    public var warnings: [String] { value.warnings }

    public func encode(to encoder: Swift.Encoder) throws { try value.encode(to: encoder) }

    public static func == (lhs: JobResultValue, rhs: JobResultValue) -> Bool {
        lhs.kind == rhs.kind && lhs.value.isEqual(to: rhs.value)
    }
}

extension JobResult {
    func isEqual(to other: any JobResult) -> Bool { (other as? Self) == self }
}
