import MediaCore

extension RemuxPlan {
    /// The bytes to reserve for the `moov` at the front of `output`, or nil when the output is not a
    /// faststart ISO file or its packet count has no bound known before the first packet.
    ///
    /// The bound is the input's index (every sample of a whole MP4/MOV), so it holds only while each input
    /// packet becomes at most one output packet: not for AMR samples split into frames, bitstream
    /// conversions, or a trim (whose output is a small part of the index, and would carry a `free` box the
    /// size of the whole file's tables).
    func movieReservation(input: InputFile, output: OutputFile, options: RemuxJob.Options) -> Int? {
        guard format.isISOBaseMedia, options.faststart, !options.fragmented, options.start == nil,
            options.end == nil, routes.values.allSatisfy({ !$0.splitsAMRFrames && $0.filter == nil }),
            let packets = MovieReservation.indexedPackets(of: input, streams: Array(routes.keys))
        else { return nil }
        return MovieReservation.bytes(
            for: output, packets: packets, pictureBytes: coverArt.byteCount, inputSize: input.size)
    }
}
