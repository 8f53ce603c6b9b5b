import NIOCore

/// Whether a body arrives at least at the minimum rate, counting only time spent waiting on its sender: a
/// request body the server reads (`--min-upload-rate`), or an input it fetches from a URL (the same rate).
///
/// The server reads a body only as fast as its disk takes it, so wall-clock time would blame the sender
/// for the server's own back-pressure. Instead each wait — from the moment the server asks the socket for
/// more to the moment bytes arrive — is added up, and every `window` of such waiting must have brought
/// `minimumRate` bytes a second on average. A sender that trickles a byte every few seconds, holding a
/// connection, a descriptor and an upload buffer (or a fetch slot), is cut off after one window; a slow but
/// real link (a phone on 2G sends several KiB a second) is not.
package struct TransferPace {
    /// Bytes a second a body must average over each window; 0 turns the check off.
    package let minimumRate: Int64
    /// How much waiting on the sender is judged at once.
    package let window: TimeAmount

    /// The waiting and the bytes of the window under way (after a `record` that failed, of that window).
    package private(set) var waited: TimeAmount = .zero
    package private(set) var bytes: Int64 = 0

    package init(minimumRate: Int64, window: TimeAmount = .seconds(10)) {
        self.minimumRate = minimumRate
        self.window = window
    }

    /// Adds `count` bytes that arrived after waiting `wait` for them; false once a full window of waiting
    /// brought fewer bytes than the minimum rate asks.
    package mutating func record(_ count: Int, after wait: TimeAmount) -> Bool {
        guard minimumRate > 0 else { return true }
        waited = waited + wait
        bytes += Int64(count)
        guard waited >= window else { return true }
        let needed = Double(minimumRate) * Double(waited.nanoseconds) / 1e9
        guard Double(bytes) >= needed else { return false }
        waited = .zero
        bytes = 0
        return true
    }

    /// Starts afresh for the next body.
    package mutating func reset() {
        waited = .zero
        bytes = 0
    }
}
