/// Reads bits, Exp-Golomb codes and flags from an RBSP (a NAL payload with emulation prevention removed).
public struct BitReader {
    private let bytes: [UInt8]
    private(set) var bitPosition = 0

    public init(rbsp: [UInt8]) { bytes = rbsp }

    /// Removes emulation-prevention bytes (`00 00 03` → `00 00`) from a NAL unit.
    public static func rbsp<C: Collection>(fromNAL nal: C) -> [UInt8] where C.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            output.append(byte)
        }
        return output
    }

    public var bitsLeft: Int { bytes.count * 8 - bitPosition }

    public mutating func bits(_ count: Int) throws -> UInt32 {
        guard count <= 32, bitsLeft >= count else {
            throw MediaError(.invalidInput, "a NAL unit header ends early (\(bitsLeft) bits left, \(count) needed)")
        }
        var value: UInt32 = 0
        for _ in 0..<count {
            let byte = bytes[bitPosition >> 3]
            value = (value << 1) | UInt32((byte >> (7 - UInt8(bitPosition & 7))) & 1)
            bitPosition += 1
        }
        return value
    }

    public mutating func flag() throws -> Bool { try bits(1) == 1 }

    public mutating func skip(_ count: Int) throws {
        guard bitsLeft >= count else { throw MediaError(.invalidInput, "a NAL unit header ends early") }
        bitPosition += count
    }

    /// Unsigned Exp-Golomb code, ue(v).
    public mutating func ue() throws -> UInt32 {
        var leadingZeros = 0
        while try bits(1) == 0 {
            leadingZeros += 1
            guard leadingZeros < 32 else { throw MediaError(.invalidInput, "an Exp-Golomb code is too long") }
        }
        guard leadingZeros > 0 else { return 0 }
        return (UInt32(1) << UInt32(leadingZeros)) - 1 + (try bits(leadingZeros))
    }

    /// Signed Exp-Golomb code, se(v).
    public mutating func se() throws -> Int32 {
        let code = try ue()
        return code & 1 == 1 ? Int32((code + 1) / 2) : -Int32(code / 2)
    }
}
