import CFFmpeg

/// Turns libav's negative return codes into `MediaError`s with libav's own text.
public enum LibavError {
    /// The text libav gives for an error number, e.g. "Invalid data found when processing input".
    public static func text(_ errnum: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        av_strerror(errnum, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The `MediaError.Code` a libav error number most likely means for user input.
    public static func code(for errnum: Int32) -> MediaError.Code {
        switch errnum {
        case mediad_averror_invaliddata(): .invalidInput
        case mediad_averror_patchwelcome(): .unsupportedCodec
        case mediad_averror_eof(): .truncatedInput
        case mediad_averror_exit(): .cancelled
        case mediad_averror(ENOSPC), mediad_averror(EDQUOT): .insufficientStorage
        case mediad_averror(ENOMEM): .outOfMemory
        // A file past the process's RLIMIT_FSIZE (a worker's `--max-output`).
        case mediad_averror(EFBIG): .outputTooLarge
        case mediad_averror(ENOENT), mediad_averror(EACCES), mediad_averror(EIO),
            mediad_averror(EISDIR), mediad_averror(EROFS):
            .ioError
        default: .invalidInput
        }
    }

    /// An error for a failed libav call: "<what>: <libav text> (<last libav log error>)".
    public static func error(
        _ errnum: Int32, _ what: String, code: MediaError.Code? = nil, detail: String? = LibavLog.takeLastError()
    ) -> MediaError {
        var message = "\(what): \(text(errnum))"
        if let detail {
            message += " (\(detail))"
        }
        // A full disk, a failed allocation or an output past its size limit is never the input's fault,
        // whatever the caller expected this call to fail with.
        let own = self.code(for: errnum)
        let resolved = [.insufficientStorage, .outOfMemory, .outputTooLarge].contains(own) ? own : code ?? own
        return MediaError(resolved, message)
    }

    /// Throws when `result` is negative; passes it through otherwise.
    @discardableResult
    public static func check(_ result: Int32, _ what: @autoclosure () -> String, code: MediaError.Code? = nil) throws
        -> Int32
    {
        if result < 0 { throw error(result, what(), code: code) }
        return result
    }
}
