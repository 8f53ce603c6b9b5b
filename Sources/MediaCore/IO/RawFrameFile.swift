import Foundation

/// A headerless input of fixed-size frames (raw PCM sample frames, raw camera frames), opened for reading.
///
/// Such a file has no header to check, so its length is the one thing that can be: it must be a whole
/// number of frames, else it is refused with `partial_frame` before anything is decoded or encoded. The
/// caller owns `descriptor` and closes it.
public struct RawFrameFile {
    public let path: String
    /// Open for reading, close-on-exec.
    public let descriptor: Int32
    /// Whole frames in the file.
    public let frames: Int64

    /// Opens `path` and checks its length against `frameBytes`; `leftover(size)` words the refusal of a
    /// length that is not a whole number of frames, naming the frames the options describe.
    public init(path: String, frameBytes: Int, leftover: (_ size: Int64) -> String) throws {
        // Read as a whole: a file still arriving is waited for first.
        try ArrivingFiles.waitForAll(path)
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError(.ioError, "cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MediaError(.ioError, "cannot stat \(path): \(reason)")
        }
        let size = Int64(info.st_size)
        guard size > 0 else {
            close(fd)
            throw MediaError(.emptyInput, "the input file is empty")
        }
        guard size % Int64(frameBytes) == 0 else {
            close(fd)
            throw MediaError(.partialFrame, leftover(size))
        }
        descriptor = fd
        frames = size / Int64(frameBytes)
    }

    /// Reads exactly `count` bytes into `buffer`, retrying interrupted reads: `truncated_input` if the file
    /// got shorter since it was opened, `io_error` if a read fails; `progress` says how far the reader had
    /// come, e.g. "120 frames".
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, progress: @autoclosure () -> String) throws {
        var filled = 0
        while filled < count {
            let got = Foundation.read(descriptor, buffer + filled, count - filled)
            let error = errno
            if got < 0 && error == EINTR { continue }
            guard got > 0 else {
                throw MediaError(
                    got == 0 ? .truncatedInput : .ioError,
                    "reading \(path) failed after \(progress()): "
                        + (got == 0 ? "the file got shorter" : String(cString: strerror(error))))
            }
            filled += got
        }
    }
}
