/// How a failed request is tried again: for as long as its retry `window` lasts from its first send (and at
/// most `attempts` sends in all), waiting between sends a random time up to `baseDelay` doubled after each
/// failure and capped at `maxDelay` ("full jitter", so that replicas throttled together do not come back
/// together). A wait never reaches past the window, and no send starts after it.
///
/// The window is what rides out an outage: a store restarted, failed over or throttling for a few seconds
/// costs a request that time, not its failure. The delays are settings rather than constants so that tests
/// run the whole schedule in milliseconds.
public struct S3RetryPolicy: Sendable, Equatable {
    /// How long after its first send a request may still be sent again.
    public var window: Duration
    /// Sends in all at most, the first included (at least 1).
    public var attempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(
        window: Duration = .seconds(30), attempts: Int = .max, baseDelay: Duration = .milliseconds(200),
        maxDelay: Duration = .seconds(5)
    ) {
        self.window = max(.zero, window)
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait after the `failed`-th failed attempt (1 for the first), whatever the window.
    public func delay(afterAttempt failed: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(failed - 1, 20)))
        return .nanoseconds(Int64.random(in: 0...max(0, Self.nanoseconds(ceiling))))
    }

    /// The wait before sending again after the `failed`-th failed attempt, `elapsed` after the first send;
    /// nil when the request must fail now: its attempts are spent, or its window has passed.
    public func wait(afterAttempt failed: Int, elapsed: Duration) -> Duration? {
        guard failed < attempts, elapsed < window else { return nil }
        return min(delay(afterAttempt: failed), window - elapsed)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
