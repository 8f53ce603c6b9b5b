import MediaCore

/// The parameter sets and NAL unit size field of an `avcC` (ISO 14496-15 5.3.3) or `hvcC` (8.3.3) record,
/// as a reference's extradata holds them.
struct ConfigurationRecord {
    /// Bytes of each NAL unit's size field in the samples.
    let lengthSize: Int
    /// Every parameter set (and SEI) of the record, as NAL units.
    let units: [[UInt8]]

    /// Reads `bytes` as an `avcC` (`hevc` false) or `hvcC` record; extradata of parameter sets behind start
    /// codes, which some writers store instead, is taken with 4-byte sizes. Throws `invalid_input` for a
    /// record that ends early.
    init(_ bytes: [UInt8], hevc: Bool) throws {
        if let annexB = AnnexB.withFourByteStartCodes(bytes) {
            lengthSize = 4
            units = annexB.withUnsafeBufferPointer { buffer in AnnexB.nalUnits(in: buffer).map { Array(buffer[$0]) } }
            return
        }
        var reader = RecordReader(bytes: bytes)
        guard try reader.byte() == 1 else {
            throw MediaError(.invalidInput, "the reference's \(hevc ? "hvcC" : "avcC") record has an unknown version")
        }
        var units: [[UInt8]] = []
        if hevc {
            try reader.skip(20)
            lengthSize = Int(try reader.byte() & 3) + 1
            for _ in 0..<(try reader.byte()) {
                try reader.skip(1)  // array_completeness, NAL_unit_type
                for _ in 0..<(try reader.uint16()) { units.append(try reader.bytes(Int(try reader.uint16()))) }
            }
        } else {
            try reader.skip(3)
            lengthSize = Int(try reader.byte() & 3) + 1
            for _ in 0..<(try reader.byte() & 0x1F) { units.append(try reader.bytes(Int(try reader.uint16()))) }
            for _ in 0..<(try reader.byte()) { units.append(try reader.bytes(Int(try reader.uint16()))) }
        }
        guard lengthSize != 3 else {
            throw MediaError(.invalidInput, "the reference's configuration record states 3-byte NAL unit sizes")
        }
        self.units = units
    }

    /// Reads the record's fields in order, refusing to read past its end.
    private struct RecordReader {
        let bytes: [UInt8]
        var index = 0

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count <= bytes.count - index else {
                throw MediaError(.invalidInput, "the reference's codec configuration record ends early")
            }
            defer { index += count }
            return Array(bytes[index..<(index + count)])
        }

        mutating func byte() throws -> UInt8 { try bytes(1)[0] }

        mutating func uint16() throws -> UInt16 { try bytes(2).reduce(0) { ($0 << 8) | UInt16($1) } }

        mutating func skip(_ count: Int) throws { _ = try bytes(count) }
    }
}
