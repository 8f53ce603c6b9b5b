import Foundation
import JobStore
import MediadFoundation
import MediadHTTP
import NIOHTTP1

/// A position in the job list's newest-first order: a job's creation time in whole milliseconds and its
/// id. Its text form is URL-safe base64 of `<milliseconds>:<id>`, opaque to clients.
struct JobListCursor: Comparable {
    var milliseconds: Int64
    var id: String

    init(record: JobRecord) {
        milliseconds = Int64((record.createdAt.timeIntervalSince1970 * 1000).rounded(.down))
        id = record.id
    }

    /// Reads a cursor this server gave out; anything else is `invalid_cursor` (400).
    init(text: String) throws {
        let invalid = ServiceError(.badRequest, "invalid_cursor", "the cursor is not one this server gave out")
        guard text.utf8.count <= 64, let data = Base64URL.decode(text),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":"),
            let milliseconds = Int64(decoded[..<colon])
        else { throw invalid }
        let id = String(decoded[decoded.index(after: colon)...])
        guard JobStore.isValidID(id) else { throw invalid }
        self.milliseconds = milliseconds
        self.id = id
    }

    var text: String {
        Base64URL.encode(Data("\(milliseconds):\(id)".utf8))
    }

    static func < (lhs: JobListCursor, rhs: JobListCursor) -> Bool {
        (lhs.milliseconds, lhs.id) < (rhs.milliseconds, rhs.id)
    }
}
