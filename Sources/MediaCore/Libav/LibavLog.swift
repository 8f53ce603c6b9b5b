import CFFmpeg
import Synchronization

/// Routes libav's log output to Swift.
///
/// libav logs through one process-wide callback. `LibavLog` installs that callback once, turns each
/// call into a complete line, hands lines at or above `level` to the current sink, and remembers the
/// latest error-level line so that a failing call can quote libav's own explanation.
public enum LibavLog {
    /// Receives one finished line (without the trailing newline) and its libav level.
    public typealias Sink = @Sendable (_ level: Int32, _ line: String) -> Void

    private struct State {
        var sink: Sink? = nil
        var level: Int32 = AV_LOG_WARNING
        var pending = ""
        var lastError: String? = nil
    }

    private static let state = Mutex(State())
    private static let installed = Mutex(false)

    /// Installs the bridge (idempotent) and sets where lines go and the lowest level passed on.
    /// A `nil` sink drops lines but still records the last error for error messages.
    public static func configure(level: Int32 = AV_LOG_WARNING, sink: Sink?) {
        installCallback()
        state.withLock {
            $0.sink = sink
            $0.level = level
        }
    }

    /// Installs the bridge with no sink if nothing was configured yet.
    static func installCallback() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            // SVT-AV1 (libsvtav1) prints its banner and configuration to stderr at info level by itself,
            // not through av_log; warnings and errors are what a job log should show. A user's own
            // SVT_LOG wins.
            setenv("SVT_LOG", "2", 0)
            av_log_set_level(AV_LOG_VERBOSE)
            mediad_log_install()
        }
    }

    /// The last error line libav logged since the previous call, if any; clears it.
    public static func takeLastError() -> String? {
        state.withLock { state in
            defer { state.lastError = nil }
            return state.lastError
        }
    }

    /// Forgets any error libav logged so far, so a later message quotes only fresh detail.
    public static func clearLastError() {
        state.withLock { $0.lastError = nil }
    }

    /// What libav says when `avformat_find_stream_info` tries a decoder that the input policy leaves out.
    /// mediad opens no decoder the policy leaves out (`Decoder` checks before libav is asked), so the line
    /// only ever comes from that probe, which then describes the track from its container as a stream copy
    /// needs: it is expected, not an error, and is passed on as debug output.
    static let probeOutsideWhitelist = "not on whitelist"

    fileprivate static func receive(level reported: Int32, fragment: String) {
        let level = fragment.contains(probeOutsideWhitelist) ? AV_LOG_DEBUG : reported
        let delivery: (Sink, [String])? = state.withLock { state in
            state.pending += fragment
            guard state.pending.hasSuffix("\n") else { return nil }
            let lines = state.pending.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            state.pending = ""
            if level <= AV_LOG_ERROR, let last = lines.last {
                state.lastError = last.trimmingCharacters()
            }
            guard level <= state.level, let sink = state.sink else { return nil }
            return (sink, lines)
        }
        if let (sink, lines) = delivery {
            for line in lines { sink(level, line) }
        }
    }
}

/// Called by the C bridge in `CFFmpeg` for every log fragment libav emits.
@_cdecl("mediad_log_line")
func mediadLogLine(level: Int32, line: UnsafePointer<CChar>?) {
    guard let line else { return }
    LibavLog.receive(level: level, fragment: String(cString: line))
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
