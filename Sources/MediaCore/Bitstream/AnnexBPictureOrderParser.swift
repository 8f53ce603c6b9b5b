/// What one NAL unit of an access unit is to picture order counting.
enum NALUnitRole {
    /// Not looked at (an H.265 unit too short for its header).
    case skipped
    /// An access unit delimiter or filler data: an access unit of nothing else can be dropped.
    case delimiterOrFiller
    /// A coded slice, whose header gives the picture's order.
    case slice
    /// Anything else: parameter sets, SEI, end of sequence, other layers.
    case other
}

/// The walk over an access unit that H.264 and H.265 picture order counting share: the codec says what each
/// NAL unit is, and takes in what it carries for later slices (parameter sets, end of sequence); the walk
/// tells whether the access unit is disposable and orders its first slice.
protocol AnnexBPictureOrderParser: PictureOrderParser {
    /// What `unit` of `bytes` is, after taking in what it carries.
    mutating func take(_ unit: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) throws -> NALUnitRole

    /// The order of the picture whose first slice has the RBSP `rbsp` (cut to `AnnexB.sliceHeaderLimit`).
    mutating func order(ofSlice rbsp: [UInt8]) throws -> PictureOrder
}

extension AnnexBPictureOrderParser {
    /// `PictureOrderParser.parse(accessUnit:)` for an Annex-B access unit.
    mutating func walk(accessUnit bytes: UnsafeBufferPointer<UInt8>) throws -> AccessUnitInfo {
        var picture: PictureOrder? = nil
        var disposable = true
        for unit in AnnexB.nalUnits(in: bytes) {
            switch try take(unit, of: bytes) {
            case .skipped, .delimiterOrFiller:
                continue
            case .other:
                disposable = false
            case .slice:
                disposable = false
                if picture == nil {
                    picture = try order(ofSlice: AnnexB.rbsp(bytes, unit, limit: AnnexB.sliceHeaderLimit))
                }
            }
        }
        return AccessUnitInfo(picture: picture, isDisposable: disposable)
    }
}
