import Foundation
import Synchronization

/// A one-line progress bar on stderr, shown only on a terminal and only once a job has run for a second.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: Double = 0
        var drawn = false
    }

    private let enabled: Bool
    private let started = Date()
    private let state = Mutex(State())

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let elapsed = Date().timeIntervalSince(started)
        guard elapsed >= 1 else { return }
        let draw = state.withLock { state -> Bool in
            guard elapsed - state.lastDraw >= 0.1 else { return false }
            state.lastDraw = elapsed
            state.drawn = true
            return true
        }
        guard draw else { return }
        let clamped = min(1, max(0, fraction))
        let width = 30
        let filled = Int(clamped * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = String(format: "\r[%@] %3d%%  %.1fs", bar, Int(clamped * 100), elapsed)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the bar's line if it was drawn.
    func finish() {
        guard enabled, state.withLock({ $0.drawn }) else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
