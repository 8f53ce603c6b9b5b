import MediaCore

/// A kind that reads one upload part, `file`, and runs as a value made of that file's path, the primary
/// output's path and its options: most kinds do. It names what the part may hold and under which bounds it
/// is opened, and the catalog's `inputs` and `run` are made from those, so that each kind states only what
/// differs.
protocol SingleFileJob: MediaJob {
    /// The containers the kind reads, by their first bytes.
    static var acceptedInputs: [InputContainer] { get }
    /// The bounds libav opens the file under, with the decoders it may run over it.
    static var inputPolicy: InputPolicy { get }
    /// What the file holds, for messages: "audio in MP4/M4A, Matroska, …".
    static var inputSummary: String { get }

    /// The job over the file at `input`, writing its primary output at `output` (and any others beside it).
    init(input: String, output: String, options: Options)
    /// Runs the job on the calling thread.
    func run(_ context: JobContext) throws -> Result
}

extension SingleFileJob {
    /// The one part, `file`.
    public static var inputs: [JobInputPart] {
        [JobInputPart("file", accepting: acceptedInputs, policy: inputPolicy, summary: inputSummary)]
    }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> Result {
        try Self(input: inputs.path(of: "file"), output: output, options: options).run(context)
    }

    /// The file at `path` opened as the kind reads it, with its streams found: its containers, under its
    /// `inputPolicy`, a damaged file read as `damaged` says for the kinds that take that option.
    static func openInput(_ path: String, damaged: DamagedInput? = nil) throws -> InputFile {
        let policy = damaged.map { inputPolicy.handling(damaged: $0) } ?? inputPolicy
        let file = try InputFile(path: path, accepting: acceptedInputs, policy: policy)
        try file.findStreamInfo()
        return file
    }
}
