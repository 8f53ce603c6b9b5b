/// The display-order facts of one coded picture, from its slice header and parameter sets.
public struct PictureOrder: Equatable, Sendable {
    /// Picture order count: pictures of one period are shown in increasing count.
    public var count: Int64
    /// The picture begins a new period: everything decoded before it is shown before it
    /// (H.264 IDR or memory management operation 5, H.265 IRAP with NoRaslOutputFlag).
    public var startsPeriod: Bool
    /// A random access point: H.264 IDR, H.265 IRAP.
    public var isKeyframe: Bool
}

/// What an access unit (one packet of libav's Annex-B parser) holds.
public struct AccessUnitInfo: Equatable, Sendable {
    /// The picture it codes; nil for an access unit without one (e.g. a trailing delimiter).
    public var picture: PictureOrder?
    /// Every NAL unit in it is a delimiter or filler data, so dropping it loses nothing.
    public var isDisposable: Bool
}

/// Computes picture order counts for an Annex-B stream, one access unit at a time in decoding order.
///
/// Implementations keep the parameter sets seen so far and the counting state the standard carries
/// from picture to picture.
public protocol PictureOrderParser {
    mutating func parse(accessUnit: UnsafeBufferPointer<UInt8>) throws -> AccessUnitInfo
}

extension AnnexB {
    /// The RBSP of a NAL unit, cut to its first `limit` bytes: slice headers never need more.
    static func rbsp(_ bytes: UnsafeBufferPointer<UInt8>, _ unit: Range<Int>, limit: Int = .max) -> [UInt8] {
        let end = unit.count > limit ? unit.lowerBound + limit : unit.upperBound
        return BitReader.rbsp(fromNAL: bytes[unit.lowerBound..<end])
    }

    /// Enough bytes of a slice NAL unit for its header.
    static let sliceHeaderLimit = 4096
}

extension PictureOrder {
    /// PicOrderCntMsb (H.264 8-3, H.265 8-27): the previous picture's, moved up or down by `maxLsb` when
    /// the least significant part has wrapped around since that picture.
    static func mostSignificantPart(lsb: Int, maxLsb: Int, previousLsb: Int, previousMsb: Int) -> Int {
        if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 { return previousMsb + maxLsb }
        if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 { return previousMsb - maxLsb }
        return previousMsb
    }
}
