import DurableIO

extension MediaError {
    /// Runs durable-file steps, failing with `io_error` and the failed call's message.
    public static func fromFileSystem(_ steps: () throws -> Void) throws {
        do {
            try steps()
        } catch let error as FileSystemError {
            throw MediaError(.ioError, error.description)
        }
    }
}
