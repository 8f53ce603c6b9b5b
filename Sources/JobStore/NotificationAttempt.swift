import Foundation
import MediadFoundation

/// One webhook delivery attempt for a job's end: when, the HTTP status the receiver answered (nil when
/// none came), and what went wrong (nil on a 2xx).
public struct NotificationAttempt: Codable, Sendable, Equatable {
    public var at: Date
    /// Always present in JSON, null when not set.
    @ExplicitNull public var status: Int?
    @ExplicitNull public var error: String?

    public init(at: Date, status: Int?, error: String?) {
        self.at = at
        self.status = status
        self.error = error
    }

    /// True when the receiver took the notification (2xx).
    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }
}
