import CFFmpeg
import Foundation

/// The custom I/O an `InputFile` reads an arriving file through (`ArrivingFiles`): libav's reads and
/// seeks wait for the bytes they need to have been written, so a demuxer reads a file that is still being
/// uploaded as it would read the whole file, and a seek past what has arrived (to a `moov` at the end)
/// waits for it. Its size is the declared one from the start.
final class ArrivingInputIO {
    let path: String
    let size: Int64
    private let descriptor: Int32
    private var position: Int64 = 0
    /// The context libav reads through; owns its buffer.
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    /// libav's own file reading buffers 32 KiB at a time; this reads alike.
    private static let bufferSize: Int32 = 32 * 1024

    init(path: String, size: Int64) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(.ioError, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.size = size
        self.descriptor = descriptor
        guard let buffer = av_malloc(Int(Self.bufferSize)) else {
            close(descriptor)
            throw MediaError(.internalError, "av_malloc failed")
        }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        context = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 0, opaque,
            { opaque, buffer, count in
                Unmanaged<ArrivingInputIO>.fromOpaque(opaque!).takeUnretainedValue().read(buffer!, Int(count))
            }, nil,
            { opaque, offset, whence in
                Unmanaged<ArrivingInputIO>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence)
            })
        guard context != nil else {
            av_free(buffer)
            close(descriptor)
            throw MediaError(.internalError, "avio_alloc_context failed")
        }
    }

    deinit {
        if let context {
            var buffer: UnsafeMutablePointer<UInt8>? = context.pointee.buffer
            av_freep(&buffer)
            var pointer: UnsafeMutablePointer<AVIOContext>? = context
            avio_context_free(&pointer)
        }
        close(descriptor)
    }

    /// Up to `count` bytes from the position, once at least one of them has been written; end of file at
    /// the declared size.
    private func read(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int32 {
        guard position < size else { return mediad_averror_eof() }
        do {
            try ArrivingFiles.wait(path, for: position + 1)
        } catch {
            return mediad_averror(EIO)
        }
        let wanted = min(Int64(count), size - position)
        let got = pread(descriptor, buffer, Int(wanted), off_t(position))
        if got < 0 { return mediad_averror(errno) }
        if got == 0 { return mediad_averror_eof() }
        position += Int64(got)
        return Int32(got)
    }

    /// Moves to a new position, once the bytes up to it have been written; `AVSEEK_SIZE` is the declared
    /// size.
    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        let target: Int64
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return size
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position + offset
        case SEEK_END: target = size + offset
        default: return Int64(mediad_averror(EINVAL))
        }
        guard target >= 0 else { return Int64(mediad_averror(EINVAL)) }
        do {
            try ArrivingFiles.wait(path, for: target)
        } catch {
            return Int64(mediad_averror(EIO))
        }
        position = target
        return target
    }
}
