import CFFmpeg

/// Room for the `moov` at the front of an MP4/MOV/M4A output, so that the file is written once with its
/// index first instead of being written whole and then rewritten whole to move the index there.
///
/// libav's `+faststart` writes `ftyp`, `mdat` and then `moov`, and its trailer shifts every byte of the
/// `mdat` forward by the size of the `moov` (a second full read and write of the file, all of it dirty
/// again for the `fsync` that follows). Its `moov_size` option instead leaves that many bytes after the
/// `ftyp`; the trailer writes the `moov` there and fills what is left with a `free` box, and the file
/// is as streamable (`moov` before `mdat`), with the same samples, edits and metadata.
///
/// The room has to be known before the first packet, so it is an upper bound computed from what the
/// output will hold: the packet count of each track (the demuxer's index of a whole, unfragmented ISO
/// input), its codec configuration and tags, the cover art, the chapters. When the muxer still finds it
/// too small, the trailer fails with `Overflow` and the caller writes the file again with `+faststart`.
public enum MovieReservation {
    /// The trailer found the reserved room too small for the `moov`: it has already written into the
    /// `mdat` behind it, so the output is lost and must be written again with `+faststart`.
    public struct Overflow: Error {
        public let underlying: Error
    }

    /// Bytes of sample tables one packet can add at most in libav 5.1's mov muxer: `stts` 8, `ctts` 8,
    /// `stss` 4, `sdtp` 1, `stsz` 4, `stsc` 12 and `co64` 8 (a chunk a packet at worst), `sbgp` 8; 53, with
    /// room to spare. Files written by libav itself use about 11.
    static let bytesPerPacket = 64
    /// `mvhd`, `iods`, `udta` and the boxes around the tracks.
    static let movieOverhead = 64 << 10
    /// `tkhd`, `edts`, `mdia`, `hdlr`, `minf`, `stsd` without the codec configuration, and a timecode
    /// track the muxer may add for a video track.
    static let trackOverhead = 8 << 10
    /// A metadata entry's boxes besides its key and value (which are counted twice: QuickTime `udta`
    /// strings and iTunes `ilst` items).
    static let tagOverhead = 64
    /// A chapter's `chpl` entry and its sample in the chapter track, besides its title.
    static let chapterOverhead = 320
    /// The reservation may take at most this fraction of the input's size, 4 %: a small output stays
    /// small (its bound, mostly fixed overhead, would be a large part of it, and the rewrite it saves
    /// costs next to nothing on a small file), and a file that declares far more samples than its bytes
    /// could hold gets `+faststart` instead of a huge `free` box.
    static let largestShareOfInput: Int64 = 25

    /// The bytes to reserve for the `moov` of `output` (streams, tags and chapters set, header not yet
    /// written) when it will hold at most `packets` packets and `pictureBytes` of cover art (which the mov
    /// muxer stores in the `moov`), or nil when that bound is more than 4 % of the input's `inputSize` bytes.
    public static func bytes(for output: OutputFile, packets: Int, pictureBytes: Int, inputSize: Int64) -> Int? {
        let context = output.context.pointee
        var total = movieOverhead + tagBytes(context.metadata) + packets * bytesPerPacket + pictureBytes
        for index in 0..<Int(context.nb_streams) {
            guard let stream = context.streams[index]?.pointee else { continue }
            total += trackOverhead + 2 * Int(stream.codecpar.pointee.extradata_size) + tagBytes(stream.metadata)
        }
        if context.nb_chapters > 0 { total += trackOverhead }  // the muxer's chapter track
        for index in 0..<Int(context.nb_chapters) {
            guard let chapter = context.chapters[index]?.pointee else { continue }
            total += chapterOverhead + tagBytes(chapter.metadata)
        }
        return Int64(total) <= min(inputSize / largestShareOfInput, Int64(Int32.max)) ? total : nil
    }

    /// How many packets the demuxer will read from the streams `indexes` of `input`: the length of each
    /// one's index, which for a whole ISO file lists every sample. Nil for any other input, or an ISO file
    /// with fragments (`moof`), whose index grows as the fragments are read.
    public static func indexedPackets(of input: InputFile, streams indexes: [Int]) -> Int? {
        guard input.container == .mp4, !input.hasMovieFragments else { return nil }
        return indexes.reduce(0) { $0 + Int(avformat_index_get_entries_count(input.stream($1))) }
    }

    /// Twice the bytes of each tag's key and value, plus the boxes around it.
    private static func tagBytes(_ metadata: OpaquePointer?) -> Int {
        LibavTags.dictionary(metadata).reduce(0) { $0 + tagOverhead + 2 * ($1.key.utf8.count + $1.value.utf8.count) }
    }
}
