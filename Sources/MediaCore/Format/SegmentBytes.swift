import CFFmpeg

/// The bytes of one segment as a libav dynamic buffer wrote them, owned here until released (`av_free`):
/// a segment goes from the muxer's buffer to its file without a copy in between.
public final class SegmentBytes {
    private let base: UnsafeMutablePointer<UInt8>?
    public let count: Int

    init(_ base: UnsafeMutablePointer<UInt8>?, count: Int) {
        self.base = base
        self.count = base == nil ? 0 : count
    }

    deinit { av_free(base) }

    /// Calls `body` with the bytes, valid only during the call.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
