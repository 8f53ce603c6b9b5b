import MediaCore

/// A job's options as its kind's own `Options` type, for records and everything that passes them on.
///
/// Encodes as the kind's options do. Decoding needs the kind, which a record stores next to its options:
/// use `JobKind.decodeOptions(from:)`.
public struct JobOptions: Sendable, Equatable, Encodable {
    public let kind: JobKind
    /// The kind's typed options.
    public let value: any JobOptionSet

    public init<Options: JobOptionSet>(_ value: Options, kind: JobKind) {
        self.kind = kind
        self.value = value
    }

    /// The options as `type`; throws `internal_error` when they are another kind's.
    public func typed<Options: JobOptionSet>(_ type: Options.Type) throws -> Options {
        guard let options = value as? Options else {
            throw MediaError(.internalError, "the options of a \(kind) job are not \(Options.self)")
        }
        return options
    }

    public func encode(to encoder: Swift.Encoder) throws { try value.encode(to: encoder) }

    public static func == (lhs: JobOptions, rhs: JobOptions) -> Bool {
        lhs.kind == rhs.kind && lhs.value.isEqual(to: rhs.value)
    }
}

extension JobOptionSet {
    func isEqual(to other: any JobOptionSet) -> Bool { (other as? Self) == self }
}
