import Digests
import Foundation
import JobStore
import TestSupport
import Testing

@Suite struct UploadFileTests {
    /// A write that would take the disk below the store's reserve is refused before it lands, with the
    /// code the API shows as 507; the refused upload then discards to nothing. (A reserve larger than any
    /// disk, so the test does not depend on what else is writing to this one.)
    @Test func writesStopAtTheDiskWatermark() throws {
        let scratch = try Scratch("upload-watermark")
        let store = try JobStore(root: scratch.path, minimumFreeBytes: 1 << 60)
        #expect(store.watermark.minimumFreeBytes == 1 << 60)
        let upload = try store.makeUpload()
        let refused = #expect(throws: StoreError.self) {
            try [UInt8](repeating: 1, count: 1000).withUnsafeBytes { try upload.write($0) }
        }
        #expect(refused?.code == "insufficient_storage")
        #expect(refused?.message.contains("--min-free-disk") == true)
        #expect(upload.size == 0)
        upload.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.uploadsDirectory).isEmpty)
        #expect(throws: Never.self) {
            try DiskWatermark(path: scratch.path, minimumFreeBytes: 0).check(adding: 1 << 62)
        }
    }

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
