/// A request to the store that failed: S3's error code (`NoSuchKey`, `SignatureDoesNotMatch`, `SlowDown` …,
/// or `ConnectionFailed` and `InvalidResponse` for what never became an S3 answer), the HTTP status, and
/// one line saying what was asked and what went wrong.
///
/// It says how many attempts were made, so a log shows whether retries ran, and whether the failure was
/// worth retrying: a 5xx, a throttle or timeout reported by S3, or a broken connection, never another 4xx.
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// S3's `<Code>`, else the status's usual code, else `ConnectionFailed` or `InvalidResponse`.
    public var code: String
    /// The HTTP status; nil when no response came.
    public var status: Int?
    /// What failed, on one line: the operation and key, then S3's `<Message>` or the transport's reason.
    public var message: String
    /// How many times the request was sent.
    public var attempts: Int

    public init(code: String, status: Int?, message: String, attempts: Int = 1) {
        self.code = code
        self.status = status
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        self.attempts = attempts
    }

    public var description: String {
        let status = status.map { " (HTTP \($0))" } ?? ""
        let tries = attempts > 1 ? " after \(attempts) attempts" : ""
        return "S3 \(code)\(status)\(tries): \(message)"
    }

    /// The codes S3 uses for trouble on its side that a later attempt may not meet.
    static let transientCodes: Set<String> = ["SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable"]

    /// Whether another attempt may succeed.
    public var isRetryable: Bool {
        guard let status else { return code == "ConnectionFailed" }
        return status >= 500 || Self.transientCodes.contains(code)
    }

    /// The error of a response with `status` and `body` (S3's `<Error>` document, or nothing for HEAD).
    static func response(status: Int, body: [UInt8], operation: String) -> S3Error {
        let document = try? S3XML.parse(body)
        let code = document?.name == "Error" ? document?.text(of: "Code") : nil
        let detail = document?.name == "Error" ? document?.text(of: "Message") : nil
        return S3Error(
            code: code ?? fallbackCode(status), status: status,
            message: "\(operation): \(detail ?? "the store answered \(status) with no error document")")
    }

    /// The code S3 gives a status when the answer carries no document (a HEAD, a proxy's page).
    static func fallbackCode(_ status: Int) -> String {
        switch status {
        case 301, 307: "PermanentRedirect"
        case 400: "BadRequest"
        case 403: "AccessDenied"
        case 404: "NotFound"
        case 412: "PreconditionFailed"
        case 416: "InvalidRange"
        case 500: "InternalError"
        case 503: "ServiceUnavailable"
        default: "HTTP\(status)"
        }
    }
}
