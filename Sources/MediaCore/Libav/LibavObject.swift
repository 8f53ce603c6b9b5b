import CFFmpeg

/// Owns one libav object of a kind that libav allocates and frees itself (`AVFrame`, `AVPacket`,
/// `AVCodecParameters`): allocated when the owner is created, freed when the last reference to it goes.
///
/// An allocation fails only when memory is exhausted, which the process cannot carry on from.
public class LibavObject<Pointee> {
    public let pointer: UnsafeMutablePointer<Pointee>
    private let free: (inout UnsafeMutablePointer<Pointee>?) -> Void

    /// `allocate` is libav's allocator (named `allocator` in the out-of-memory message), `free` its
    /// matching free function, which takes the pointer by reference and clears it.
    init(
        _ allocator: String, allocate: () -> UnsafeMutablePointer<Pointee>?,
        free: @escaping (inout UnsafeMutablePointer<Pointee>?) -> Void
    ) {
        guard let pointer = allocate() else { fatalError("\(allocator): out of memory") }
        self.pointer = pointer
        self.free = free
    }

    deinit {
        var pointer: UnsafeMutablePointer<Pointee>? = pointer
        free(&pointer)
    }
}
