import Foundation

/// One webhook delivery attempt for a job's end: when, the HTTP status the receiver answered (nil when
/// none came), and what went wrong (nil on a 2xx).
public struct NotificationAttempt: Codable, Sendable, Equatable {
    public var at: Date
    public var status: Int?
    public var error: String?

    public init(at: Date, status: Int?, error: String?) {
        self.at = at
        self.status = status
        self.error = error
    }

    /// True when the receiver took the notification (2xx).
    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }

    enum CodingKeys: String, CodingKey {
        case at, status, error
    }

    /// `status` and `error` are always present, null when not set.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(status, forKey: .status)
        try container.encode(error, forKey: .error)
    }
}
