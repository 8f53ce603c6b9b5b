import DurableIO
import Foundation

extension MediaError {
    /// Runs durable-file steps, failing with `io_error` and the failed call's message, or `output_too_large`
    /// for a file past the process's RLIMIT_FSIZE (EFBIG: a worker's `--max-output`).
    public static func fromFileSystem(_ steps: () throws -> Void) throws {
        do {
            try steps()
        } catch let error as FileSystemError {
            throw MediaError(error.errno == EFBIG ? .outputTooLarge : .ioError, error.description)
        }
    }
}
