import Foundation
import NIOCore
import NIOHTTP1

/// `mediad submit`'s resumable path: the file goes up with tus 1.0.0 (`POST /uploads`, then `PATCH`es
/// from the offset the server holds) and becomes the job when its last byte arrives, so that a large file
/// survives a cut connection or a server restart without being sent again from the start.
extension JobClient {
    /// How often an upload is taken up again after a failure before the submission gives up.
    public static let resumeAttempts = 8

    /// Uploads `file` as a new `kind` job with `options`, both in the upload's metadata (the server checks
    /// them before a byte is sent). The remainder of the file goes in one `PATCH`; after a connection
    /// failure, a timeout, a 5xx, 423 (another request still holds the upload), 409 (the offsets
    /// disagree) or 429 (a full queue for the finished upload) it waits 1, 2, 4 … (at most 30) seconds,
    /// asks the server for its offset with `HEAD` and sends the rest from there, up to `resumeAttempts`
    /// times. `resumed` is told each offset an upload is taken up from.
    public func submitResumable(
        kind: String, file: String, options: [(String, String)], resumed: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> Job {
        let size = try Self.fileSize(file)
        let metadata = [("kind", kind), ("filename", URL(fileURLWithPath: file).lastPathComponent)] + options
        let created = try await send(
            .POST, "/uploads",
            headers: Self.tus + [
                ("Upload-Length", String(size)),
                (
                    "Upload-Metadata",
                    metadata.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
                ),
            ], timeout: .seconds(30))
        guard created.status == 201, let location = created.headers.first(name: "location") else {
            throw Self.failure(created.status, created.body)
        }
        var offset: Int64 = 0
        var failures = 0
        while true {
            var failure: Failure
            do {
                let answer = try await send(
                    .PATCH, location,
                    headers: Self.tus + [
                        ("Upload-Offset", String(offset)), ("Content-Type", "application/offset+octet-stream"),
                    ], body: .fileTail(file, from: offset), timeout: nil)
                if answer.status == 204 { return try await job(finishing: answer) }
                failure = Self.failure(answer.status, answer.body)
                guard [409, 423, 429].contains(answer.status) || answer.status >= 500 else { throw failure }
            } catch let error as Failure where error.code == "connection_failed" {
                failure = error
            }
            failures += 1
            guard failures < Self.resumeAttempts else { throw failure }
            try await Task.sleep(for: .seconds(min(30, 1 << (failures - 1))))
            do {
                offset = try await heldOffset(of: location)
                resumed(offset)
            } catch let gone as Failure where gone.code.hasPrefix("http_4") {
                // The upload is gone (expired, deleted) or was never this client's: nothing to resume.
                throw gone
            } catch {
                // The server is still out of reach: the next attempt tries it again.
            }
        }
    }

    private static let tus = [("Tus-Resumable", "1.0.0")]

    /// The job the last `PATCH` made (`Mediad-Job`).
    private func job(finishing answer: HTTPClient.Response) async throws -> Job {
        guard let path = answer.headers.first(name: "mediad-job"), path.hasPrefix("/jobs/") else {
            throw Failure(code: "invalid_response", message: "the finished upload names no job (Mediad-Job)")
        }
        return try Self.job(try await send(.GET, path, timeout: .seconds(30)))
    }

    /// The offset the server holds for the upload (`HEAD`'s `Upload-Offset`).
    private func heldOffset(of location: String) async throws -> Int64 {
        let answer = try await send(.HEAD, location, headers: Self.tus, timeout: .seconds(30))
        guard answer.status == 200, let offset = answer.headers.first(name: "upload-offset").flatMap({ Int64($0) })
        else { throw Self.failure(answer.status, answer.body) }
        return offset
    }

    private static func fileSize(_ path: String) throws -> Int64 {
        do {
            return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw Failure(code: "io_error", message: "cannot read \(path): \(error.localizedDescription)")
        }
    }
}
