import MediaCore

/// One input a job kind takes: the upload part it arrives in and what it may hold.
public struct JobInputPart: Sendable, Equatable {
    /// The multipart part name: `file`, or `audio`/`video` for mux.
    public var name: String
    /// The containers accepted, by their first bytes.
    public var containers: [InputContainer]
    /// Whether bytes no sniffer recognises are accepted too: raw PCM has no signature.
    public var acceptsUnrecognized: Bool
    /// What the part holds, for messages: "ADTS AAC".
    public var summary: String

    public init(
        _ name: String, accepting containers: [InputContainer], orUnrecognized acceptsUnrecognized: Bool = false,
        summary: String
    ) {
        self.name = name
        self.containers = containers
        self.acceptsUnrecognized = acceptsUnrecognized
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
        case .container(let container) where containers.contains(container): return
        case .container(let container):
            throw MediaError(.unsupportedFormat, "the input is \(container.displayName); \(kind) takes \(summary)")
        }
    }
}

/// The input files of one run, by part name; only the parts that were given.
public struct JobInputFiles: Sendable {
    public var paths: [String: String]

    public init(_ paths: [String: String]) { self.paths = paths }

    /// The path of `part`, or nil when it was not given.
    public subscript(part: String) -> String? { paths[part] }

    /// The path of a part the kind cannot run without.
    public func path(of part: String) throws -> String {
        guard let path = paths[part] else { throw MediaError(.internalError, "the job has no '\(part)' input") }
        return path
    }
}
