import MediaCore

/// One track of the input on its way to the output: decoded, filtered and encoded, or copied.
protocol TrackPipeline: AnyObject {
    /// The input stream whose packets it takes.
    var inputIndex: Int { get }
    var track: OutputTrack { get }
    /// Whether the track has everything it needs (its `end` passed), so the input need not be read further
    /// for it.
    var isComplete: Bool { get }
    /// Takes one packet of the input stream.
    func send(_ packet: Packet) throws
    /// Flushes decoder, filters and encoder at the end of the input.
    func finish() throws
    /// The track's entry in the result.
    func report() -> TranscodeResult.Track
}
