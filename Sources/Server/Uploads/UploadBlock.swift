import NIOCore

/// A fixed buffer in which body bytes are gathered before they go to disk in one write.
///
/// Owned by one `BlockWriter`, which hands it whole to the pool thread that writes it and takes it back
/// afterwards, so it is never touched from two threads at once (hence `@unchecked Sendable`). Allocated
/// once per upload and reused, so receiving a file allocates nothing per chunk.
final class UploadBlock: @unchecked Sendable {
    private let memory: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(capacity: Int) {
        memory = .allocate(byteCount: capacity, alignment: 64)
    }

    deinit { memory.deallocate() }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == memory.count }

    /// The bytes gathered so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[0..<count]) }

    /// Moves as many readable bytes of `buffer` as fit into the block.
    func take(from buffer: inout ByteBuffer) {
        let length = min(buffer.readableBytes, memory.count - count)
        buffer.withUnsafeReadableBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: memory[count..<count + length])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<length]))
        }
        buffer.moveReaderIndex(forwardBy: length)
        count += length
    }

    /// Empties the block for reuse.
    func reset() { count = 0 }
}
