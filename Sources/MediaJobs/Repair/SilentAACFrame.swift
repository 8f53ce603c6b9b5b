import MediaCore

/// A raw AAC frame of data stream and fill elements only, then END (ISO 14496-3 4.4.2.1): no audio, as
/// libfaac's first frame carries its name. libav's decoder takes such a frame without giving samples, and
/// then goes on to decode whatever bytes follow in the same packet, so the length search by decoding
/// (`AACFrameFinder`) cannot find its end; its elements state their own lengths instead.
enum SilentAACFrame {
    /// The most elements read before END.
    static let maxElements = 16

    /// The length of the frame at the start of `bytes` when it holds only data stream (DSE) and fill (FIL)
    /// elements before END; nil for any other frame, or bytes that end first.
    static func length(of bytes: [UInt8]) -> Int? {
        var reader = BitReader(rbsp: bytes)
        for _ in 0..<maxElements {
            guard let type = try? reader.bits(3) else { return nil }
            switch type {
            case 7:  // ID_END
                return (bytes.count * 8 - reader.bitsLeft + 7) / 8
            case 4:  // ID_DSE: element_instance_tag, data_byte_align_flag, count, [esc_count], data
                guard (try? reader.skip(4)) != nil, let align = try? reader.flag(), var count = try? reader.bits(8)
                else { return nil }
                if count == 255 {
                    guard let escape = try? reader.bits(8) else { return nil }
                    count += escape
                }
                if align {
                    let used = bytes.count * 8 - reader.bitsLeft
                    guard (try? reader.skip((8 - used % 8) % 8)) != nil else { return nil }
                }
                guard (try? reader.skip(8 * Int(count))) != nil else { return nil }
            case 6:  // ID_FIL: count, [esc_count], fill bytes
                guard var count = try? reader.bits(4) else { return nil }
                if count == 15 {
                    guard let escape = try? reader.bits(8) else { return nil }
                    count = count + escape - 1
                }
                guard (try? reader.skip(8 * Int(count))) != nil else { return nil }
            default:
                return nil
            }
        }
        return nil
    }
}
