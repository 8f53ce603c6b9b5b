import MediaCore

/// Finds the samples of a length-prefixed H.264/H.265 track (ISO 14496-15: each NAL unit behind its size)
/// in media data, one access unit at a time.
///
/// A sample is the NAL units of one picture: leading units (delimiter, parameter sets, SEI), the slices of
/// one picture, and trailing units. It ends where a unit starts the next access unit (a leading unit or
/// a first slice after the slices), where the bytes stop being NAL units of this codec (another track's
/// sample), or at the end of the data. A sample whose units run past the end of the data is incomplete
/// and not a sample.
struct VideoSampleReader {
    /// One access unit found in the data.
    struct Sample {
        let offset: Int64
        let size: Int
        let isKeyframe: Bool
        /// Where each NAL unit's bytes lie, after its size field.
        let units: [(offset: Int64, size: Int)]
        /// The syntax with the parameter sets this sample carries taken in.
        fileprivate let syntax: any NALSyntax
    }

    /// The most NAL units one sample may hold.
    static let maxUnits = 600

    private(set) var syntax: any NALSyntax
    /// Bytes of each NAL unit's size field (1, 2 or 4).
    let lengthSize: Int
    /// The largest NAL unit accepted: a bound from the reference's largest sample.
    let maxUnitSize: Int
    /// Whether a picture may have several slices: only when the reference's pictures do.
    let allowsLaterSlices: Bool

    init(syntax: any NALSyntax, lengthSize: Int, maxUnitSize: Int, allowsLaterSlices: Bool) {
        self.syntax = syntax
        self.lengthSize = lengthSize
        self.maxUnitSize = maxUnitSize
        self.allowsLaterSlices = allowsLaterSlices
    }

    /// What starts at a position.
    enum Found {
        case sample(Sample)
        /// The first unit of a sample whose bytes run past the end of the data: the sample the recorder
        /// was writing when it died.
        case cutOff
        case none

        var sample: Sample? { if case .sample(let sample) = self { sample } else { nil } }
    }

    /// What starts at `offset`, with everything before `end` to look at.
    func sample(at offset: Int64, end: Int64, in window: ByteWindow) throws -> Found {
        var local = syntax
        var position = offset
        var units: [(offset: Int64, size: Int)] = []
        var pictureSeen = false
        var keyframe = false
        while position < end {
            guard units.count < Self.maxUnits else { return .none }
            let left = end - position
            let size = left > Int64(lengthSize) ? Int(try window.bigEndian(at: position, width: lengthSize)) : 0
            guard size >= 1, size <= maxUnitSize, Int64(size) <= left - Int64(lengthSize) else {
                if pictureSeen { break }
                let available = Int(min(max(0, left - Int64(lengthSize)), Int64(NALChecks.headerBytes)))
                guard size <= maxUnitSize, available >= 2 else { return .none }
                let begins = try window.withBytes(at: position + Int64(lengthSize), count: available) {
                    local.beginsSample($0)
                }
                return begins ? .cutOff : .none
            }
            let start = position + Int64(lengthSize)
            // A slice's or parameter set's header is all a check reads; SEI and filler are read whole, up
            // to `NALChecks.maxWholeUnit`, so that no position costs more than that to look at.
            let needsWhole = try window.withBytes(at: start, count: 1) { local.isReadWhole($0[0]) }
            let checked = needsWhole ? size : min(size, NALChecks.headerBytes)
            let (role, isParameterSet) =
                needsWhole && size > NALChecks.maxWholeUnit
                ? (nil, false)
                : try window.withBytes(at: start, count: checked) { (local.role(of: $0), local.isParameterSet($0)) }
            guard let role else {
                if pictureSeen { break }
                return .none
            }
            var endsSample = false
            switch role {
            case .firstSlice(let isKeyframe):
                endsSample = pictureSeen
                if !pictureSeen { keyframe = isKeyframe }
                pictureSeen = true
            case .laterSlice:
                guard pictureSeen else { return .none }
                endsSample = !allowsLaterSlices
            case .leading:
                endsSample = pictureSeen
                if !pictureSeen && isParameterSet {
                    try window.withBytes(at: start, count: size) { local.take(parameterSet: $0) }
                }
            case .trailing:
                guard pictureSeen else { return .none }
            }
            if endsSample { break }
            units.append((start, size))
            position = start + Int64(size)
        }
        guard pictureSeen else { return .none }
        return .sample(
            Sample(offset: offset, size: Int(position - offset), isKeyframe: keyframe, units: units, syntax: local))
    }

    /// Makes `sample` part of the stream: the parameter sets it carried apply to the samples after it.
    mutating func accept(_ sample: Sample) { syntax = sample.syntax }

    /// The sample's NAL units as an Annex-B access unit, slices cut to their headers, for picture order
    /// counting.
    func headers(of sample: Sample, in window: ByteWindow) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for unit in sample.units {
            try window.withBytes(at: unit.offset, count: unit.size) { nal in
                bytes += [0, 0, 0, 1]
                bytes += syntax.isParameterSet(nal) ? Array(nal) : Array(nal.prefix(NALChecks.headerBytes))
            }
        }
        return bytes
    }
}
