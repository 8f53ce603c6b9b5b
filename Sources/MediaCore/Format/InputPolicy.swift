/// Bounds for opening untrusted input.
public struct InputPolicy: Sendable {
    /// Bytes libav may read while probing stream parameters.
    public var probeSize: Int = 16 * 1024 * 1024
    /// Microseconds of media libav may analyse while probing.
    public var analyzeDuration: Int = 10_000_000
    /// Streams past this count make the open fail.
    public var maxStreams: Int32 = 64
    /// Largest accepted video width or height.
    public var maxDimension: Int32 = 16384

    public init() {}
}
