import MediaCore

/// What one NAL unit is to the grouping of a length-prefixed stream into samples (access units, H.264
/// 7.4.1.2.3 and H.265 7.4.2.4.4).
enum NALRole: Equatable {
    /// The first slice of a picture (first_mb_in_slice 0, first_slice_segment_in_pic_flag 1); the picture
    /// is a random access point when `keyframe`.
    case firstSlice(keyframe: Bool)
    /// A further slice of the picture before it.
    case laterSlice
    /// A unit that comes before a picture's slices and begins an access unit when it follows them:
    /// a delimiter, a parameter set, a (prefix) SEI.
    case leading
    /// A unit that may follow a picture's slices inside its access unit: end of sequence or stream,
    /// filler data, a suffix SEI.
    case trailing
}

/// The NAL unit syntax of one codec, as far as telling a real unit from other bytes needs it: header
/// fields, the sizes of fixed-size units, SEI framing, and slice headers resolved through the parameter
/// sets the reference and the stream itself have given.
protocol NALSyntax {
    /// The codec, for messages.
    var codecName: String { get }
    /// What `unit` (header included, emulation prevention still in) is, or nil when it cannot be a valid
    /// unit of this codec here; parameter sets it carries are taken in only by `take(parameterSet:)`.
    func role(of unit: UnsafeBufferPointer<UInt8>) -> NALRole?
    /// Takes in a parameter set of a sample that was accepted, for the slices after it.
    mutating func take(parameterSet unit: UnsafeBufferPointer<UInt8>)
    /// Whether a unit whose first byte is `header` is checked whole (SEI, filler) rather than by its header.
    func isReadWhole(_ header: UInt8) -> Bool
    /// Whether `unit` is a parameter set (kept whole when slice headers are copied for picture order).
    func isParameterSet(_ unit: UnsafeBufferPointer<UInt8>) -> Bool
    /// Whether `prefix`, the first bytes of a unit cut off by the end of the data, can begin a sample: a
    /// first slice whose header is all there, or the header of a parameter set or SEI.
    func beginsSample(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool
}

/// Checks shared by the H.264 and H.265 syntaxes.
enum NALChecks {
    /// The most bytes of a NAL unit read to check a slice header or a parameter set: slice headers with
    /// long reference list modifications and weight tables still fit.
    static let headerBytes = 4096
    /// The largest SEI or filler unit checked (they are read whole); real ones are a few kilobytes.
    static let maxWholeUnit = 1 << 20

    /// The RBSP of the first `headerBytes` of `unit`.
    static func rbsp(_ unit: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        BitReader.rbsp(fromNAL: unit.prefix(headerBytes))
    }

    /// Whether the payload after the `headerSize`-byte header is a sequence of whole SEI messages (type and
    /// size coded in runs of 0xFF, D.3.1 / 7.3.5) ended by the RBSP stop bit. Random bytes rarely are.
    static func isSEI(_ unit: UnsafeBufferPointer<UInt8>, headerSize: Int) -> Bool {
        let payload = BitReader.rbsp(fromNAL: unit.dropFirst(headerSize))
        var index = 0
        /// A value coded as a run of 0xFF bytes and a last byte that is not 0xFF.
        func codedValue() -> Int? {
            var total = 0
            while index < payload.count {
                let byte = payload[index]
                index += 1
                total += Int(byte)
                if byte != 0xFF { return total }
            }
            return nil
        }
        repeat {
            guard codedValue() != nil, let size = codedValue(), size <= payload.count - index else { return false }
            index += size
        } while index < payload.count - 1
        return index == payload.count - 1 && payload[index] == 0x80
    }

    /// Whether the payload after the header is filler data: 0xFF bytes and the stop bit.
    static func isFiller(_ unit: UnsafeBufferPointer<UInt8>, headerSize: Int) -> Bool {
        guard unit.count > headerSize, unit.last == 0x80 else { return false }
        return unit.dropFirst(headerSize).dropLast().allSatisfy { $0 == 0xFF }
    }
}
