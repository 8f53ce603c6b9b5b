/// The pixel size of a still image, read from its header: PNG (`IHDR`), JPEG (the first start-of-frame
/// marker) and BMP. For cover art, whose size libav only learns by decoding the image, which mediad does
/// not do to an upload.
public struct ImageSize: Equatable, Sendable {
    public var width: Int
    public var height: Int

    /// Nil when the bytes are none of those formats, or their header is cut off or states a zero size.
    public init?(header bytes: UnsafeBufferPointer<UInt8>) {
        let size: (Int, Int)? =
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
                Self.png(bytes)
            } else if bytes.starts(with: [0xFF, 0xD8]) {
                Self.jpeg(bytes)
            } else if bytes.starts(with: [0x42, 0x4D]) {
                Self.bmp(bytes)
            } else {
                nil
            }
        guard let (width, height) = size, width > 0, height > 0 else { return nil }
        self.width = width
        self.height = height
    }

    private static func png(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        guard bytes.count >= 24 else { return nil }
        return (bigEndian(bytes, 16, 4), bigEndian(bytes, 20, 4))
    }

    /// Walks the markers to the first SOFn (not DHT, JPG or DAC, which share the range).
    private static func jpeg(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        var offset = 2
        while offset + 9 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = bigEndian(bytes, offset + 2, 2)
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (bigEndian(bytes, offset + 7, 2), bigEndian(bytes, offset + 5, 2))
            }
            guard length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }

    private static func bmp(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        guard bytes.count >= 26 else { return nil }
        let width = Int32(bitPattern: UInt32(littleEndian: bytes, 18))
        let height = Int32(bitPattern: UInt32(littleEndian: bytes, 22))
        return (Int(width.magnitude), Int(height.magnitude))
    }

    private static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}

extension UInt32 {
    fileprivate init(littleEndian bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) {
        self = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
