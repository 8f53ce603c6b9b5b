/// What a remux wrote.
public struct RemuxResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// The libav muxer used (e.g. `mp4`, or `3gp` when a 3GPP codec needs that flavour of MP4).
    public var muxer: String
    public var tracks: [Track]
    /// Where the output really starts in the input's timeline (a keyframe), when `start` was given.
    public var cutStart: Double?
    /// Where the output really ends in the input's timeline (a keyframe or the end), when `end` was given.
    public var cutEnd: Double?

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, muxer, tracks
        case cutStart = "cut_start"
        case cutEnd = "cut_end"
    }

    /// One track of the output.
    public struct Track: Codable, Sendable, Equatable {
        public var inputIndex: Int
        public var outputIndex: Int
        public var kind: String
        public var codec: String
        public var packets: Int

        enum CodingKeys: String, CodingKey {
            case kind, codec, packets
            case inputIndex = "input_index"
            case outputIndex = "output_index"
        }
    }
}
