import Digests
import Foundation
import MediaCore
import MediadClient
import NIOPosix
import ObjectStorage

/// One file put into the bucket as a multipart upload: parts of 8 to 64 MiB read from the file in place
/// (no copy), each signed with its SHA-256 so the store checks it, at most `inFlight` of them sent at once,
/// completed in order; any failure aborts the upload (at once, else once the store answers again), so that
/// no half object is ever presented as whole and no parts are left to be paid for.
package struct MultipartPut: Sendable {
    let client: S3Client
    /// Where an upload that cannot be aborted (the store does not answer) waits for the store's return.
    let leftovers: ObjectLeftovers
    let key: String
    let path: String
    let size: Int64
    let contentType: String
    /// Parts sent at once: two keep the link busy while one part is signed and opened, and bound the
    /// connections (and the store's work) one output takes.
    var inFlight = 2

    static let minimumPart: Int64 = 8 << 20
    static let maximumPart: Int64 = 64 << 20

    /// The part size for a file of `size` bytes: about a hundredth of it, between 8 and 64 MiB, in whole
    /// MiB, and more only when 10000 parts (S3's most) of 64 MiB would not hold the file.
    package static func partSize(for size: Int64) -> Int64 {
        let mebibyte: Int64 = 1 << 20
        let hundredth = (size / 100 + mebibyte - 1) / mebibyte * mebibyte
        let bounded = min(maximumPart, max(minimumPart, hundredth))
        let needed = (size + 9_999) / 10_000
        return max(bounded, (needed + mebibyte - 1) / mebibyte * mebibyte)
    }

    /// The SHA-256 of `count` bytes of the file from `offset`, read on the thread pool in 1 MiB blocks. Each
    /// part is signed with it (`x-amz-content-sha256`), so the store refuses a part whose bytes are not the
    /// ones read here; the output was just written, so this pass reads from the page cache.
    static func sha256(of path: String, from offset: Int64, count: Int64) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw MediaError(.storageUnavailable, "cannot read \(path) to send it") }
            defer { close(descriptor) }
            let hasher = SHA256Hasher()
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { block.deallocate() }
            var done: Int64 = 0
            while done < count {
                let wanted = Int(min(Int64(block.count), count - done))
                let read = pread(descriptor, block.baseAddress, wanted, off_t(offset + done))
                guard read > 0 else {
                    throw MediaError(.storageUnavailable, "\(path) ended before byte \(offset + count)")
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: block[0..<read]))
                done += Int64(read)
            }
            return hasher.finalize()
        }
    }

    /// Uploads the file; throws the first failure once the upload is aborted.
    func run() async throws {
        let partSize = Self.partSize(for: size)
        let count = Int((size + partSize - 1) / partSize)
        let uploadID = try await client.createMultipartUpload(key, contentType: contentType)
        do {
            let parts = try await withThrowingTaskGroup(of: S3Client.Part.self) { group in
                var parts: [S3Client.Part] = []
                for number in 1...count {
                    if number > inFlight, let done = try await group.next() { parts.append(done) }
                    let offset = Int64(number - 1) * partSize
                    let length = min(partSize, size - offset)
                    group.addTask {
                        let sha256 = try await Self.sha256(of: path, from: offset, count: length)
                        return try await client.uploadPart(
                            key, uploadID: uploadID, number: number,
                            body: .fileSlice(path, from: offset, count: length), sha256Hex: sha256)
                    }
                }
                for try await done in group { parts.append(done) }
                return parts
            }
            try await client.completeMultipartUpload(key, uploadID: uploadID, parts: parts)
        } catch {
            await JobObjects.clean(.upload(key: key, uploadID: uploadID), with: client, leftovers: leftovers)
            throw error
        }
    }
}
