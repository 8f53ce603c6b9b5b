import ObjectStorage
import Testing

/// Which failures `S3Client` tries again: the store's trouble (5xx, `SlowDown`, `RequestTimeout`,
/// `InternalError`) and broken connections, never a refusal; and how long it waits, at most the capped
/// exponential bound.
@Suite struct S3RetryTests {
    @Test(arguments: [
        (S3Error(code: "SlowDown", status: 503, message: ""), true),
        (S3Error(code: "InternalError", status: 500, message: ""), true),
        (S3Error(code: "RequestTimeout", status: 400, message: ""), true),
        (S3Error(code: "HTTP502", status: 502, message: ""), true),
        (S3Error(code: "ConnectionFailed", status: nil, message: ""), true),
        (S3Error(code: "SignatureDoesNotMatch", status: 403, message: ""), false),
        (S3Error(code: "NoSuchKey", status: 404, message: ""), false),
        (S3Error(code: "EntityTooSmall", status: 400, message: ""), false),
        (S3Error(code: "InvalidDigest", status: nil, message: ""), false),
    ])
    func onlyTheStoresTroubleIsRetried(error: S3Error, retried: Bool) {
        #expect(error.isRetryable == retried, "\(error)")
    }

    @Test func delaysStayUnderTheCappedExponentialBound() {
        let policy = S3RetryPolicy(attempts: 6, baseDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        for failed in 1...5 {
            let bound = min(Duration.milliseconds(500), .milliseconds(100) * (1 << (failed - 1)))
            for _ in 0..<50 { #expect(policy.delay(afterAttempt: failed) <= bound) }
        }
        #expect(S3RetryPolicy(attempts: 0).attempts == 1)
    }

    @Test func messagesAreOneLineAndNameTheAttempts() {
        let error = S3Error(code: "SlowDown", status: 503, message: "PUT a.mp4: Please\nreduce", attempts: 4)
        #expect(error.description == "S3 SlowDown (HTTP 503) after 4 attempts: PUT a.mp4: Please reduce")
    }
}
