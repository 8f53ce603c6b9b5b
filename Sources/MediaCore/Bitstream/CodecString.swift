import CFFmpeg

/// The RFC 6381 `codecs` value of a track (`avc1.64001f`, `hvc1.1.6.L93.B0`, `mp4a.40.2`), as HLS's
/// `CODECS` and DASH's `@codecs` state it, read from the track's own parameter sets: the decoder
/// configuration record (avcC, hvcC, av1C, AudioSpecificConfig) when the extradata is one, else the
/// sequence parameter set of Annex-B extradata.
public enum CodecString {
    /// The value for `parameters`, or nil for a codec no manifest format here names.
    public static func of(_ parameters: UnsafePointer<AVCodecParameters>) -> String? {
        let extradata =
            parameters.pointee.extradata.map {
                Array(UnsafeBufferPointer(start: $0, count: Int(parameters.pointee.extradata_size)))
            } ?? []
        switch parameters.pointee.codec_id {
        case AV_CODEC_ID_H264: return avc(extradata)
        case AV_CODEC_ID_HEVC: return hevc(extradata)
        case AV_CODEC_ID_AV1: return av1(extradata)
        case AV_CODEC_ID_VP9: return vp9(parameters.pointee)
        case AV_CODEC_ID_AAC: return aac(extradata, profile: parameters.pointee.profile)
        case AV_CODEC_ID_MP3: return "mp4a.40.34"
        case AV_CODEC_ID_AC3: return "ac-3"
        case AV_CODEC_ID_EAC3: return "ec-3"
        case AV_CODEC_ID_OPUS: return "Opus"
        case AV_CODEC_ID_FLAC: return "fLaC"
        default: return nil
        }
    }

    /// `avc1.PPCCLL`: profile_idc, the constraint flags and level_idc, the three bytes after an SPS's
    /// NAL header and the three after an avcC's version byte.
    static func avc(_ extradata: [UInt8]) -> String? {
        let profile: ArraySlice<UInt8>
        if extradata.first == 1, extradata.count >= 4 {
            profile = extradata[1..<4]
        } else if let sps = firstNAL(in: extradata, where: { $0 & 0x1F == 7 }), sps.count >= 4 {
            profile = sps[1..<4]
        } else {
            return nil
        }
        return "avc1." + profile.map(hex).joined()
    }

    /// `hvc1.<space><profile>.<compatibility, bit-reversed>.<tier><level>.<constraints>` from the general
    /// profile, tier and level: hvcC bytes 1–12, or the same 12 bytes of an SPS's profile_tier_level.
    static func hevc(_ extradata: [UInt8]) -> String? {
        let record: [UInt8]
        if extradata.first == 1, extradata.count >= 13 {
            record = Array(extradata[1..<13])
        } else if let sps = firstNAL(in: extradata, where: { ($0 >> 1) & 0x3F == 33 }) {
            let payload = BitReader.rbsp(fromNAL: sps.dropFirst(2))
            guard payload.count >= 13 else { return nil }
            record = Array(payload[1..<13])
        } else {
            return nil
        }
        let space = ["", "A", "B", "C"][Int(record[0] >> 6)]
        let tier = record[0] & 0x20 != 0 ? "H" : "L"
        let compatibility = record[1..<5].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
        var constraints = Array(record[5..<11])
        while constraints.last == 0 { constraints.removeLast() }
        let parts = [
            "hvc1", space + String(record[0] & 0x1F), String(reversedBits(compatibility), radix: 16, uppercase: true),
            tier + String(record[11]),
        ]
        return (parts + constraints.map(hex).map { $0.uppercased() }).joined(separator: ".")
    }

    /// `av01.<profile>.<level><tier>.<bit depth>` from the av1C record's second and third bytes.
    static func av1(_ extradata: [UInt8]) -> String? {
        guard extradata.count >= 4, extradata[0] & 0x7F == 1 else { return nil }
        let profile = extradata[1] >> 5
        let level = extradata[1] & 0x1F
        let tier = extradata[2] & 0x80 != 0 ? "H" : "M"
        let highBitDepth = extradata[2] & 0x40 != 0
        let twelveBit = extradata[2] & 0x20 != 0
        let depth = highBitDepth ? (twelveBit ? 12 : 10) : 8
        return "av01.\(profile).\(twoDigits(Int(level)))\(tier).\(twoDigits(depth))"
    }

    /// `vp09.<profile>.<level>.<bit depth>`; a level the container does not state is given as 3.1, which
    /// covers up to 720p at 30 fps.
    static func vp9(_ parameters: AVCodecParameters) -> String? {
        let profile = max(0, parameters.profile)
        let level = parameters.level > 0 ? parameters.level : 31
        let depth = av_pix_fmt_desc_get(AVPixelFormat(rawValue: parameters.format)).map { Int($0.pointee.comp.0.depth) }
        let bits = depth.map { $0 > 0 ? $0 : 8 } ?? 8
        return "vp09." + [Int(profile), Int(level), bits].map(twoDigits).joined(separator: ".")
    }

    /// `mp4a.40.<audio object type>`: the AudioSpecificConfig's first 5 bits (31 escapes to 32 + 6 more),
    /// or the codec profile + 1 without one.
    static func aac(_ extradata: [UInt8], profile: Int32) -> String {
        guard let first = extradata.first else { return "mp4a.40.\(profile >= 0 ? Int(profile) + 1 : 2)" }
        var objectType = Int(first >> 3)
        if objectType == 31, extradata.count >= 2 {
            objectType = 32 + Int((first & 0x07) << 3 | extradata[1] >> 5)
        }
        return "mp4a.40.\(objectType)"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    private static func reversedBits(_ value: UInt32) -> UInt32 {
        (0..<32).reduce(UInt32(0)) { result, bit in result | ((value >> bit) & 1) << (31 - bit) }
    }

    /// The first NAL unit of Annex-B `bytes` whose first header byte satisfies `matches`.
    private static func firstNAL(in bytes: [UInt8], where matches: (UInt8) -> Bool) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { buffer in
            AnnexB.nalUnits(in: buffer).first { !$0.isEmpty && matches(buffer[$0.lowerBound]) }.map { Array(bytes[$0]) }
        }
    }
}
