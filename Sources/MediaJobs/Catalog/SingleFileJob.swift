import MediaCore

/// A kind that reads one upload part, `file`: most kinds do. It names what the part may hold and under
/// which bounds it is opened, and `inputs` is made from those, so that each kind states only what differs.
public protocol SingleFileJob: MediaJob {
    /// The containers the kind reads, by their first bytes.
    static var acceptedInputs: [InputContainer] { get }
    /// The bounds libav opens the file under, with the decoders it may run over it.
    static var inputPolicy: InputPolicy { get }
    /// What the file holds, for messages: "audio in MP4/M4A, Matroska, …".
    static var inputSummary: String { get }
}

extension SingleFileJob {
    /// The one part, `file`.
    public static var inputs: [JobInputPart] {
        [JobInputPart("file", accepting: acceptedInputs, policy: inputPolicy, summary: inputSummary)]
    }
}
