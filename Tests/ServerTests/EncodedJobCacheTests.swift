import Foundation
import JobStore
import MediaJobs
import NIOCore
import Testing

@testable import Server

/// The cache of job JSON: the same bytes `JobJSON` makes, reused only while the record is unchanged.
@Suite struct EncodedJobCacheTests {
    func record(_ id: String = JobStore.newID()) -> JobRecord {
        JobRecord(
            id: id, createdAt: Date(timeIntervalSince1970: 1_795_000_000.5),
            options: try! JobKind.remux.options(parsing: ["format": "mkv"]),
            inputs: [JobInput(name: "file", size: 9, sha256: "ab")])
    }

    func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }

    @Test func answersWhatTheEncoderMakesUntilTheRecordChanges() throws {
        let cache = EncodedJobCache()
        var job = record()
        let first = try cache.body(for: job)
        #expect(text(first) == String(decoding: try JobJSON.encoder().encode(job), as: UTF8.self) + "\n")
        #expect(try cache.body(for: job) == first)
        for change in [
            { (job: inout JobRecord) in job.state = .running },
            { (job: inout JobRecord) in job.progress = 0.25 },
            { (job: inout JobRecord) in
                job.notifications = [NotificationAttempt(at: Date(), status: 500, error: "the receiver answered 500")]
            },
        ] {
            change(&job)
            let changed = try cache.body(for: job)
            #expect(text(changed) == String(decoding: try JobJSON.encoder().encode(job), as: UTF8.self) + "\n")
        }
        #expect(text(try cache.body(for: job)).contains("\"progress\":0.25"))
    }

    @Test func startsOverWhenFull() throws {
        let cache = EncodedJobCache(capacity: 4)
        let jobs = (0..<10).map { _ in record() }
        for job in jobs + jobs {
            #expect(text(try cache.body(for: job)).contains(job.id))
        }
    }
}
