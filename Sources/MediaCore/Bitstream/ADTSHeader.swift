/// The fixed and variable header of one ADTS frame (ISO/IEC 13818-7, 6.2).
public struct ADTSHeader: Equatable, Sendable {
    /// MPEG-4 audio object type: the ADTS profile field plus one (2 = AAC-LC).
    public var objectType: Int
    public var samplingFrequencyIndex: Int
    public var channelConfiguration: Int
    /// Length of the whole frame, header included.
    public var frameLength: Int
    /// 7 bytes, or 9 when a CRC follows the header.
    public var headerLength: Int
    /// Raw data blocks carried in this frame (1 for almost every encoder).
    public var rawDataBlockCount: Int

    /// Sampling rates by index (ISO/IEC 14496-3, 1.6.3.4).
    public static let sampleRates = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
    ]

    public var sampleRate: Int? {
        samplingFrequencyIndex < Self.sampleRates.count ? Self.sampleRates[samplingFrequencyIndex] : nil
    }

    /// The two-byte AudioSpecificConfig that MP4 and Matroska store for this stream.
    public var audioSpecificConfig: [UInt8] {
        let value = (objectType << 11) | (samplingFrequencyIndex << 7) | (channelConfiguration << 3)
        return [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    /// True when a 12-bit sync word with layer 0 starts at `offset`.
    public static func isSync(_ bytes: [UInt8], at offset: Int) -> Bool {
        offset + 1 < bytes.count && bytes[offset] == 0xFF && bytes[offset + 1] & 0xF6 == 0xF0
    }

    /// Parses the header at `offset`; nil when there is no valid header there.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> ADTSHeader? {
        guard offset + 7 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xF6 == 0xF0 else { return nil }
        let b1 = Int(bytes[offset + 1])
        let b2 = Int(bytes[offset + 2])
        let b3 = Int(bytes[offset + 3])
        let b4 = Int(bytes[offset + 4])
        let b5 = Int(bytes[offset + 5])
        let b6 = Int(bytes[offset + 6])
        let header = ADTSHeader(
            objectType: (b2 >> 6) + 1,
            samplingFrequencyIndex: (b2 >> 2) & 0x0F,
            channelConfiguration: ((b2 & 0x01) << 2) | (b3 >> 6),
            frameLength: ((b3 & 0x03) << 11) | (b4 << 3) | (b5 >> 5),
            headerLength: b1 & 0x01 == 1 ? 7 : 9,
            rawDataBlockCount: (b6 & 0x03) + 1)
        guard header.frameLength > header.headerLength, header.sampleRate != nil else { return nil }
        return header
    }

    /// Where ADTS data starts after any leading ID3v2 tags; nil if an ID3 tag is cut short.
    public static func payloadStart(skippingID3In head: [UInt8]) -> Int? {
        var offset = 0
        while offset + 10 <= head.count, head[offset] == 0x49, head[offset + 1] == 0x44, head[offset + 2] == 0x33 {
            let size = head[(offset + 6)...(offset + 9)].reduce(0) { ($0 << 7) | Int($1 & 0x7F) }
            let footer = head[offset + 5] & 0x10 != 0 ? 10 : 0
            offset += 10 + size + footer
        }
        return offset <= head.count ? offset : nil
    }
}
