/// Builds ISO base media boxes byte by byte, for tests that need structures no muxer writes.
enum ISOBoxBytes {
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    static func bigEndian64(_ value: UInt64) -> [UInt8] {
        bigEndian(UInt32(value >> 32)) + bigEndian(UInt32(value & 0xFFFF_FFFF))
    }

    /// A box of `type` with a 32-bit size.
    static func box(_ type: String, _ body: [UInt8] = []) -> [UInt8] {
        bigEndian(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    /// A full box: version, 24-bit flags, then `body`.
    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: [UInt8] = []) -> [UInt8] {
        box(type, [version] + bigEndian(flags).dropFirst() + body)
    }

    static let fileType = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0])

    /// A version-0 movie header with a timescale of 1000.
    static let movieHeader = fullBox(
        "mvhd", [0, 0, 0, 0, 0, 0, 0, 0] + bigEndian(1000) + [UInt8](repeating: 0, count: 84))

    /// `ftyp` + `moov` holding a movie header and `children`.
    static func movie(_ children: [UInt8]) -> [UInt8] {
        fileType + box("moov", movieHeader + children)
    }

    /// A track whose sample table (`stbl`) holds `tables`.
    static func track(_ tables: [UInt8]) -> [UInt8] {
        box("trak", box("mdia", box("minf", box("stbl", tables))))
    }

    /// `stsc` with one run of `samplesPerChunk` starting at chunk 1.
    static func sampleToChunk(samplesPerChunk: UInt32) -> [UInt8] {
        fullBox("stsc", bigEndian(1) + bigEndian(1) + bigEndian(samplesPerChunk) + bigEndian(1))
    }

    /// `stsz` with one size for every sample.
    static func constantSampleSizes(_ size: UInt32, count: UInt32) -> [UInt8] {
        fullBox("stsz", bigEndian(size) + bigEndian(count))
    }

    /// `stco` with the given 32-bit chunk offsets.
    static func chunkOffsets(_ offsets: [UInt32]) -> [UInt8] {
        fullBox("stco", bigEndian(UInt32(offsets.count)) + offsets.flatMap(bigEndian))
    }
}
