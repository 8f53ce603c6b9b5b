/// A failure of a media job, with a stable machine-readable `code` and a message for people.
///
/// The code is part of the public contract: the CLI prints it, the HTTP API returns it as-is,
/// and clients branch on it. Add codes; never rename one.
public struct MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stable identifier such as `invalid_input`.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An option is unknown, malformed or out of range.
        public static let invalidOption = Code(rawValue: "invalid_option")
        /// Options contradict each other or the input (e.g. WAV header vs explicit rate).
        public static let conflictingOptions = Code(rawValue: "conflicting_options")
        /// The input is not a container or stream format this job accepts.
        public static let unsupportedFormat = Code(rawValue: "unsupported_format")
        /// A codec the job cannot handle, or one the target container cannot carry.
        public static let unsupportedCodec = Code(rawValue: "unsupported_codec")
        /// The input is zero bytes long.
        public static let emptyInput = Code(rawValue: "empty_input")
        /// The input ends before its own structure says it should.
        public static let truncatedInput = Code(rawValue: "truncated_input")
        /// The input is damaged or not what it claims to be.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The input has no track of the kind the job needs.
        public static let missingStream = Code(rawValue: "missing_stream")
        /// An H.264/H.265 stream lacks the SPS/PPS (or VPS) needed to describe it.
        public static let missingParameterSets = Code(rawValue: "missing_parameter_sets")
        /// Raw PCM whose length is not a whole number of sample frames.
        public static let partialFrame = Code(rawValue: "partial_frame")
        /// A trim window that selects nothing.
        public static let emptySelection = Code(rawValue: "empty_selection")
        /// A repair's reference recording does not describe the broken one: another codec, or settings its
        /// media data does not decode with.
        public static let referenceMismatch = Code(rawValue: "reference_mismatch")
        /// A repair needs a reference recording for this input, and none was given.
        public static let referenceRequired = Code(rawValue: "reference_required")
        /// A repair found no complete sample (or fragment) in the input to rebuild a file from.
        public static let nothingRecovered = Code(rawValue: "nothing_recovered")
        /// Reading or writing a file failed (permissions, disk full, missing file).
        public static let ioError = Code(rawValue: "io_error")
        /// The disk holding the outputs is full, or below the free-space watermark the server keeps.
        public static let insufficientStorage = Code(rawValue: "insufficient_storage")
        /// A job's outputs would be, or grew, larger than it may write: `--max-output` on the server. Decided
        /// before decoding where the output's size follows from the input (raw frames, PCM), else when a
        /// write passes the limit.
        public static let outputTooLarge = Code(rawValue: "output_too_large")
        /// A job's outputs would take its API token past the bytes it may store (the server's `--quota`).
        public static let quotaExceeded = Code(rawValue: "quota_exceeded")
        /// The job was cancelled by its caller.
        public static let cancelled = Code(rawValue: "cancelled")
        /// A URL the egress policy (`--egress-allow`) does not let the server fetch from or write to.
        public static let inputRefused = Code(rawValue: "input_refused")
        /// An output URL the egress policy does not let the server write to.
        public static let outputRefused = Code(rawValue: "output_refused")
        /// URL inputs and outputs are off: the server has no `--egress-allow`.
        public static let egressDisabled = Code(rawValue: "egress_disabled")
        /// An input URL's host did not resolve, or the connection failed, broke or stalled.
        public static let inputUnreachable = Code(rawValue: "input_unreachable")
        /// An input URL answered with a status that is not a success (the message names it).
        public static let inputHTTPError = Code(rawValue: "input_http_error")
        /// An input URL's body is larger than the server's upload limit.
        public static let inputTooLarge = Code(rawValue: "input_too_large")
        /// Fetching a job's URL inputs took longer than the server allows (`--input-timeout`).
        public static let inputTimeout = Code(rawValue: "input_timeout")
        /// An input URL's body arrived slower than the minimum rate (`--min-upload-rate`).
        public static let inputTooSlow = Code(rawValue: "input_too_slow")
        /// The job needs more memory than it may use: an allocation failed under the worker's limit
        /// (`--job-memory`), or the job's own estimate is over that limit before it starts.
        public static let outOfMemory = Code(rawValue: "out_of_memory")
        /// libav failed in a way no input should cause; a bug to report.
        public static let internalError = Code(rawValue: "internal_error")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
