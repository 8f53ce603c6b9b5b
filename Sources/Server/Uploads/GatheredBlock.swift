import NIOCore

/// The body bytes of one block, as the buffers they arrived in, in order.
///
/// A chunk is kept as it is when it is large and fills at least half of the memory it sits in (the usual
/// case for a raw upload: a read buffer sized by NIO's adaptive allocator to what the socket had). Other
/// chunks are copied into a buffer of the block's own: a trickle of small chunks, each holding on to a
/// whole read buffer, cannot pin many times the block's size, and a block stays a few dozen pieces (a
/// multipart body arrives in many small ones), which `withPieces` nests one call per piece.
struct GatheredBlock {
    private var buffers: [ByteBuffer] = []
    /// Where small chunks are copied; placed in `buffers` before the next chunk kept as it is.
    private var copied: ByteBuffer?
    /// Body bytes gathered.
    private(set) var count = 0

    mutating func append(_ chunk: ByteBuffer) {
        guard chunk.readableBytes > 0 else { return }
        count += chunk.readableBytes
        if chunk.readableBytes >= Self.smallestKept, chunk.readableBytes * 2 >= chunk.storageCapacity,
            buffers.count < Self.mostKept
        {
            closeCopy()
            buffers.append(chunk)
        } else {
            var chunk = chunk
            if copied == nil { copied = ByteBufferAllocator().buffer(capacity: Self.copyCapacity) }
            copied!.writeBuffer(&chunk)
        }
    }

    /// The buffers gathered, in order; the block is empty again.
    mutating func take() -> [ByteBuffer] {
        closeCopy()
        defer {
            buffers = []
            count = 0
        }
        return buffers
    }

    private mutating func closeCopy() {
        guard let buffer = copied else { return }
        buffers.append(buffer)
        copied = nil
    }

    /// First size of the buffer small chunks are copied into; it grows as needed.
    private static let copyCapacity = 64 << 10
    /// Chunks smaller than this are copied: their copy costs less than another piece.
    private static let smallestKept = 16 << 10
    /// Pieces kept before the rest of the block is copied, whatever the chunks' size.
    private static let mostKept = 64

    /// Runs `body` with the readable bytes of every buffer, in order. The pointers are valid only inside it.
    static func withPieces<Result>(
        _ buffers: ArraySlice<ByteBuffer>, _ pieces: [UnsafeRawBufferPointer],
        _ body: ([UnsafeRawBufferPointer]) throws -> Result
    ) rethrows -> Result {
        guard let first = buffers.first else { return try body(pieces) }
        return try first.withUnsafeReadableBytes { bytes in
            try withPieces(buffers.dropFirst(), pieces + [bytes], body)
        }
    }
}
