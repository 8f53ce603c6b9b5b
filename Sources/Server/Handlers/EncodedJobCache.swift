import FoundationEssentials
import JobStore
import NIOCore
import Synchronization

/// The JSON bodies of job records recently answered, so that a job polled again and again is encoded once
/// per change rather than once per request (JSON encoding was a third of the server's CPU under a status
/// poll load).
///
/// A body is reused only while the record it was made from equals the record being answered: any change —
/// state, progress, outputs, notifications — encodes afresh. At `capacity` records the cache is emptied
/// and fills again, which bounds its memory without bookkeeping per request.
final class EncodedJobCache: Sendable {
    private struct Entry: Sendable {
        var record: JobRecord
        var body: ByteBuffer
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// The record as the service's JSON (`JobJSON`), with a final newline.
    func body(for record: JobRecord) throws -> ByteBuffer {
        if let body = cachedBody(for: record) { return body }
        let data = try JobJSON.encoder().encode(record)
        var body = ByteBuffer()
        body.reserveCapacity(data.count + 1)
        body.writeBytes(data)
        body.writeInteger(UInt8(ascii: "\n"))
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[record.id] = Entry(record: record, body: body)
        }
        return body
    }

    /// The JSON made for this very record, if it is still here; nil where `body(for:)` would encode it.
    /// Cheap enough for an event loop: a lookup and a comparison, under a lock held for no longer.
    func cachedBody(for record: JobRecord) -> ByteBuffer? {
        guard let entry = entries.withLock({ $0[record.id] }), entry.record == record else { return nil }
        return entry.body
    }
}
