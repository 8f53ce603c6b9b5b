import Foundation

/// An upload as found on disk: its record, how many bytes it holds, and when it last changed (the
/// start of its expiry).
public struct ResumableUploadState: Sendable {
    public var upload: ResumableUpload
    /// Bytes received: the size of the `data` file (once moved into a job, `length`).
    public var offset: Int64
    /// The last write to its data or record.
    public var lastActivity: Date
    /// Whether its bytes are still in the upload, not yet moved into the job it names.
    public var holdsData: Bool

    public init(upload: ResumableUpload, offset: Int64, lastActivity: Date, holdsData: Bool = true) {
        self.upload = upload
        self.offset = offset
        self.lastActivity = lastActivity
        self.holdsData = holdsData
    }

    /// Whether every byte is in.
    public var isComplete: Bool { offset == upload.length }

    /// When the upload expires: `expiry` after its last activity.
    public func expiresAt(after expiry: TimeInterval) -> Date { lastActivity.addingTimeInterval(expiry) }
}
