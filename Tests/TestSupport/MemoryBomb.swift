import Foundation

/// A small, well-formed-looking file that makes libav's MP4 reader allocate far more memory than the
/// file is large — for tests of the memory limits of workers and probe children.
public enum MemoryBomb {
    /// A fragmented MP4 whose first `trun` declares `samples` samples of one byte each (the `tfhd`
    /// default size), padded with a `free` box so that every declared byte lies inside the file and
    /// mediad's own table checks let it through. libav makes an index entry per sample while it opens
    /// the file: 32 million samples take about 1 GB, from a 34 MB file of zeros.
    public static func fragmentRun(in scratch: Scratch, samples: UInt32 = 32_000_000) throws -> String {
        let source = scratch.file("fragmented.mp4")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264",
                "-preset", "ultrafast", "-g", "10", "-movflags", "frag_keyframe+empty_moov", source,
            ])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        func offset(of type: String) throws -> Int {
            guard
                let found = bytes.indices.first(where: {
                    Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array(type.utf8)
                })
            else { throw MissingBox(type: type) }
            return found
        }
        func put(_ value: UInt32, at index: Int) {
            bytes.replaceSubrange(index..<(index + 4), with: withUnsafeBytes(of: value.bigEndian, Array.init))
        }
        // tfhd: type, version and flags, track id, then the optional fields its flags name, in order.
        let tfhd = try offset(of: "tfhd")
        let flags = UInt32(bytes[tfhd + 5]) << 16 | UInt32(bytes[tfhd + 6]) << 8 | UInt32(bytes[tfhd + 7])
        guard flags & 0x10 != 0 else { throw MissingBox(type: "tfhd default-sample-size") }
        var field = tfhd + 12
        if flags & 0x01 != 0 { field += 8 }
        if flags & 0x02 != 0 { field += 4 }
        if flags & 0x08 != 0 { field += 4 }
        put(1, at: field)
        // trun: no per-sample fields (flags 0), then the sample count.
        let trun = try offset(of: "trun")
        put(0, at: trun + 4)
        put(samples, at: trun + 8)
        let padding = Int(samples) + (2 << 20)
        bytes += withUnsafeBytes(of: UInt32(padding + 8).bigEndian, Array.init) + Array("free".utf8)
        bytes += [UInt8](repeating: 0, count: padding)
        return try scratch.write("bomb.mp4", bytes)
    }

    struct MissingBox: Error {
        var type: String
    }
}
