import CFFmpeg
import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// The `moov` of a faststart remux is written into room reserved after the `ftyp` (`MovieReservation`)
/// instead of by libav's rewrite of the whole file: the output must be the same movie, still streamable.
@Suite struct RemuxMovieReservationTests {
    /// 60 s of 640x360 30 fps H.264 with B-frames and 48 kHz stereo AAC (about 4,600 packets), with a title
    /// and a track language; moov at the end, as a camera writes it.
    static func largeInput() throws -> String {
        try Fixtures.make(
            "reservation_60s.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=60", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=60", "-ac", "2", "-c:v", "libx264", "-preset",
                "ultrafast", "-bf", "2", "-g", "60", "-c:a", "aac", "-b:a", "96k", "-metadata", "title=Reserved",
                "-metadata:s:a:0", "language=fra", "-shortest", "-f", "mp4",
            ])
    }

    @Test func largeRemuxIsStreamableAndTheSameMovieAsTheRewrite() throws {
        let scratch = try Scratch("reservation")
        let input = try Self.largeInput()
        let (reserved, result) = try remux(input, to: .mp4, in: scratch)
        #expect(result.warnings.isEmpty)
        let boxes = try Oracle.topLevelBoxes(reserved)
        // ftyp, moov, the reservation's rest as `free`, the muxer's own 8-byte `free`, mdat.
        #expect(boxes == ["ftyp", "moov", "free", "free", "mdat"], "boxes: \(boxes)")
        let general = try #require(try Parsers.mediainfo(reserved).first { $0["@type"] as? String == "General" })
        #expect(general["IsStreamable"] as? String == "Yes")

        let rewritten = scratch.file("rewritten.mp4")
        let job = RemuxJob(input: input, output: rewritten, options: try .init(parsing: ["format": "mp4"]))
        _ = try job.write(.mp4, JobContext(), reservingMovie: false)
        #expect(try Oracle.topLevelBoxes(rewritten) == ["ftyp", "moov", "free", "mdat"])

        for stream in ["v:0", "a:0"] {
            let packets = try Oracle.packets(reserved, stream: stream)
            #expect(packets.count == (try Oracle.packetCount(input, stream: stream)))
            #expect(NSArray(array: packets).isEqual(to: try Oracle.packets(rewritten, stream: stream)))
        }
        #expect(try Oracle.decodedHashes(reserved) == Oracle.decodedHashes(input))
        #expect(try Oracle.audioOffset(of: input, in: reserved) == 0)
        #expect(try Self.describedMovie(reserved) == Self.describedMovie(rewritten))
    }

    /// A small file's reservation would be mostly fixed overhead (a 450 KB file came out 553 KB, 97 KB of
    /// it `free`): past 4 % of the input the `moov` is moved by the rewrite instead, which costs next to
    /// nothing at that size, and the output is as small as the ffmpeg CLI's.
    @Test func aSmallRemuxIsAsSmallAsTheCLIs() throws {
        let scratch = try Scratch("reservation-small")
        let input = try Fixtures.h264AacMP4()
        let (output, result) = try remux(input, to: .mp4, in: scratch)
        #expect(result.warnings.isEmpty)
        let cli = scratch.file("cli.mp4")
        try Command.run(
            "ffmpeg", ["-v", "error", "-i", input, "-map", "0", "-c", "copy", "-movflags", "+faststart", cli])
        let (ours, theirs) = (try Self.size(output), try Self.size(cli))
        print("small remux to mp4: \(ours) bytes, the CLI's \(theirs), the input \(try Self.size(input))")
        #expect(Double(ours) <= Double(theirs) * 1.02, "\(ours) bytes against the CLI's \(theirs)")
        #expect(try Oracle.topLevelBoxes(output) == ["ftyp", "moov", "free", "mdat"])
        #expect(try Oracle.decodedHashes(output) == Oracle.decodedHashes(input))
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func aMovieBoxLargerThanItsRoomFailsTheTrailerAsAnOverflow() throws {
        let scratch = try Scratch("reservation")
        let input = try InputFile(path: try Fixtures.h264AacMP4(), accepting: [.mp4], policy: .streamCopy)
        try input.findStreamInfo()
        let path = scratch.file("small.mp4")
        var output: OutputFile? = try OutputFile(path: path, muxer: "mp4")
        for stream in input.streams {
            try output!.addStream(copying: stream.pointee.codecpar, timeBase: stream.pointee.time_base)
        }
        try output!.writeHeader(options: ["moov_size": "64"])
        let packet = Packet()
        while try input.read(into: packet) {
            packet.pointer.pointee.pos = -1
            try output!.write(packet)
        }
        #expect(throws: MovieReservation.Overflow.self) { try output!.finish() }
        output = nil
        #expect(try Scratch.listingIsOnly([], in: scratch))
    }

    /// ffprobe's streams and format with what differs between two layouts of one movie left out.
    static func describedMovie(_ path: String) throws -> NSDictionary {
        var probe = try Oracle.probe(path)
        var format = probe["format"] as? [String: Any] ?? [:]
        for key in ["filename", "size", "bit_rate"] { format[key] = nil }
        probe["format"] = format
        return NSDictionary(dictionary: probe)
    }
}
