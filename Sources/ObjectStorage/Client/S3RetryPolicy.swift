/// How a failed request is tried again: at most `attempts` sends in all, waiting between them a random time
/// up to `baseDelay` doubled after each failure and capped at `maxDelay` ("full jitter", so that replicas
/// throttled together do not come back together).
///
/// The delays are settings rather than constants so that tests run the whole schedule in milliseconds.
public struct S3RetryPolicy: Sendable, Equatable {
    /// Sends in all, the first included (at least 1).
    public var attempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(attempts: Int = 4, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5)) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait after the `failed`-th failed attempt (1 for the first).
    public func delay(afterAttempt failed: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(failed - 1, 20)))
        let nanoseconds = ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(0, nanoseconds)))
    }
}
