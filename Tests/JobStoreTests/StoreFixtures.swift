import Foundation
import JobStore
import MediaJobs
import TestSupport

/// Records and stores for the store's tests.
enum StoreFixtures {
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    static func record(
        id: String = JobStore.newID(), kind: JobKind = .remux, state: JobState = .queued, createdAt: Date = epoch,
        inputs: [JobInput] = []
    ) -> JobRecord {
        JobRecord(id: id, state: state, createdAt: createdAt, options: options(for: kind), inputs: inputs)
    }

    /// The kind's default options; a remux writes Matroska.
    static func options(for kind: JobKind) -> JobOptions {
        try! kind.options(parsing: kind == .remux ? ["format": "mkv"] : [:])
    }

    /// A finished upload holding `bytes`.
    static func upload(_ bytes: [UInt8], in store: JobStore) throws -> UploadedFile {
        let upload = try store.makeUpload()
        try bytes.withUnsafeBytes { try upload.write($0) }
        return try upload.finish()
    }

    /// A job stored with one input, `input`, holding `bytes`.
    @discardableResult
    static func storedJob(in store: JobStore, bytes: [UInt8] = Array("media".utf8), createdAt: Date = epoch) throws
        -> JobRecord
    {
        let file = try upload(bytes, in: store)
        let record = record(
            createdAt: createdAt, inputs: [JobInput(name: "input", size: file.size, sha256: file.sha256)])
        try store.create(record, inputs: ["input": file])
        return record
    }

    static func listing(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
