import MediaCore

/// One input a job kind takes: the upload part it arrives in and what it may hold.
public struct JobInputPart: Sendable {
    /// The multipart part name: `file`, or `audio`/`video` for mux.
    public var name: String
    /// The containers accepted, by their first bytes.
    public var containers: [InputContainer]
    /// Whether bytes no sniffer recognises are accepted too: raw PCM has no signature.
    public var acceptsUnrecognized: Bool
    /// The bounds libav opens the part under, with the decoders it may run over it.
    public var policy: InputPolicy
    /// What the part holds, for messages: "ADTS AAC".
    public var summary: String

    public init(
        _ name: String, accepting containers: [InputContainer], orUnrecognized acceptsUnrecognized: Bool = false,
        policy: InputPolicy, summary: String
    ) {
        self.name = name
        self.containers = containers
        self.acceptsUnrecognized = acceptsUnrecognized
        self.policy = policy
        self.summary = summary
    }

    /// The name the input is stored under in a job's directory: `input` for `file`, else the part's name.
    public var storedName: String { name == "file" ? "input" : name }

    /// Refuses a file that is obviously not what this part takes, by its first bytes, with the engine's
    /// own classification: `empty_input` or `unsupported_format`.
    public func screen(_ path: String, for kind: JobKind) throws {
        guard acceptsUnrecognized else {
            _ = try InputFile.classify(path: path, accepting: containers)
            return
        }
        switch try InputSniffer.sniff(path: path) {
        case .empty: throw MediaError(.emptyInput, "the input file is empty")
        case .unrecognized: return
        case .foreign(let what):
            throw MediaError(.unsupportedFormat, "the input is \(what); \(kind) takes \(summary)")
        case .container(let container) where containers.contains(container): return
        case .container(let container):
            throw MediaError(.unsupportedFormat, "the input is \(container.displayName); \(kind) takes \(summary)")
        }
    }
}
