import Foundation
import JobStore
import TestSupport
import Testing

@Suite struct UploadFileTests {
    @Test func writesHashesAndFinishes() throws {
        let scratch = try Scratch("upload")
        let store = try JobStore(root: scratch.path)
        let upload = try store.makeUpload()
        #expect(upload.path.hasPrefix(store.uploadsDirectory + "/"))
        #expect(upload.path.hasSuffix(".part"))
        var random = SeededBytes(seed: 3)
        let bytes = random.next(count: 300_000)
        for start in stride(from: 0, to: bytes.count, by: 70_000) {
            try bytes[start..<min(start + 70_000, bytes.count)].withUnsafeBytes { try upload.write($0) }
        }
        #expect(upload.size == 300_000)

        let file = try upload.finish()
        #expect(file.path == upload.path)
        #expect(file.size == 300_000)
        let onDisk = try SHA256Hasher.hexDigest(ofFileAt: file.path)
        #expect(onDisk.size == 300_000 && onDisk.sha256 == file.sha256)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data(bytes))

        // Finished is final: no more writes, and discard leaves the file alone.
        #expect(throws: StoreError.self) { try [UInt8(1)].withUnsafeBytes { try upload.write($0) } }
        upload.discard()
        #expect(StoreFixtures.exists(file.path))
    }

    @Test func emptyUploadHasTheEmptyDigest() throws {
        let scratch = try Scratch("upload")
        let file = try StoreFixtures.upload([], in: try JobStore(root: scratch.path))
        #expect(file.size == 0)
        #expect(file.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func discardRemovesTheFile() throws {
        let scratch = try Scratch("upload")
        let store = try JobStore(root: scratch.path)
        let upload = try store.makeUpload()
        try [UInt8](repeating: 9, count: 1000).withUnsafeBytes { try upload.write($0) }
        upload.discard()
        #expect(!StoreFixtures.exists(upload.path))
        #expect(throws: StoreError.self) { try upload.finish() }
        #expect(try StoreFixtures.listing(store.uploadsDirectory).isEmpty)
    }

    @Test func releasingAnUnfinishedUploadRemovesIt() throws {
        let scratch = try Scratch("upload")
        let store = try JobStore(root: scratch.path)
        var path = ""
        do {
            let upload = try store.makeUpload()
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try upload.write($0) }
            path = upload.path
            #expect(StoreFixtures.exists(path))
        }
        #expect(!StoreFixtures.exists(path))
        #expect(try StoreFixtures.listing(store.uploadsDirectory).isEmpty)
    }
}
