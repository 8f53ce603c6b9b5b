import Digests
import Foundation
import JobStore
import MediadHTTP
import NIOHTTP1

/// The fields of tus 1.0.0 (tus.io's resumable upload protocol) as `/uploads` speaks them: the version
/// and extensions advertised, the request fields read (each refused with a JSON error and a stable code),
/// and the fields every `/uploads` answer carries.
enum TusProtocol {
    static let version = "1.0.0"
    static let extensions = "creation,creation-with-upload,termination,expiration,checksum"
    /// `Tus-Checksum-Algorithm`, in the order offered.
    static let checksumAlgorithms = MessageDigest.Algorithm.allCases.map(\.rawValue).joined(separator: ",")
    /// The media type of every chunk (`PATCH`, and a `POST` that carries the first one).
    static let chunkType = "application/offset+octet-stream"
    /// Response fields a browser script may read across origins, so the web console (or any page) can
    /// drive an upload.
    static let exposedHeaders =
        "Upload-Offset, Location, Upload-Length, Tus-Version, Tus-Resumable, Tus-Max-Size, Tus-Extension, "
        + "Tus-Checksum-Algorithm, Upload-Metadata, Upload-Expires, Mediad-Job"
    /// 460, the status tus gives a chunk whose `Upload-Checksum` does not match.
    static let checksumMismatch = HTTPResponseStatus.custom(code: 460, reasonPhrase: "Checksum Mismatch")

    /// Adds what every `/uploads` answer carries: `Tus-Resumable` and the exposed fields.
    static func decorate(_ response: inout Response) {
        response.headers.replaceOrAdd(name: "Tus-Resumable", value: version)
        response.headers.replaceOrAdd(name: "Access-Control-Expose-Headers", value: exposedHeaders)
    }

    /// 412 `unsupported_tus_version` (with `Tus-Version`) unless the request says `Tus-Resumable: 1.0.0`.
    static func requireVersion(_ request: Request) throws {
        let sent = request.head.headers.first(name: "tus-resumable")
        guard sent?.trimmingCharacters(in: .whitespaces) != version else { return }
        throw ServiceError(
            .preconditionFailed, "unsupported_tus_version",
            sent == nil
                ? "send Tus-Resumable: \(version) with every request but OPTIONS"
                : "this server speaks tus \(version), not \(sent!.prefix(40))",
            headers: [("Tus-Version", version)])
    }

    /// Whether the request's `Content-Type` is that of a chunk.
    static func carriesChunk(_ request: Request) -> Bool {
        request.head.headers.first(name: "content-type")?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased() == chunkType
    }

    /// 415 `unsupported_media_type` unless the request carries a chunk.
    static func requireChunk(_ request: Request) throws {
        guard carriesChunk(request) else {
            throw ServiceError(
                .unsupportedMediaType, "unsupported_media_type", "a chunk is sent as Content-Type: \(chunkType)")
        }
    }

    /// A header that must be a non-negative decimal integer (`Upload-Offset`, `Upload-Length`); 400
    /// `invalid_request` when it is missing or not one.
    static func count(_ request: Request, _ name: String) throws -> Int64 {
        guard let text = request.head.headers.first(name: name) else {
            throw ServiceError.invalidRequest("\(name) is missing")
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int64(text) else {
            throw ServiceError.invalidRequest("\(name) must be a non-negative integer, not \(text.prefix(40))")
        }
        return value
    }

    /// `Upload-Checksum: <algorithm> <base64 digest>`, if sent: 400 `unsupported_checksum_algorithm` for an
    /// algorithm not in `Tus-Checksum-Algorithm`, 400 `invalid_request` for a malformed value.
    static func checksum(_ request: Request) throws -> ChunkChecksum? {
        guard let text = request.head.headers.first(name: "upload-checksum") else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let digest = Data(base64Encoded: String(parts[1])) else {
            throw ServiceError.invalidRequest("Upload-Checksum is '<algorithm> <base64 digest>'")
        }
        guard let algorithm = MessageDigest.Algorithm(rawValue: parts[0].lowercased()) else {
            throw ServiceError(
                .badRequest, "unsupported_checksum_algorithm",
                "Upload-Checksum algorithms: \(checksumAlgorithms) (not \(parts[0].prefix(20)))")
        }
        return ChunkChecksum(algorithm: algorithm, digest: Array(digest))
    }

    /// The fields describing an upload's state: `Upload-Offset`, `Upload-Length`, `Upload-Metadata`,
    /// `Upload-Expires` and, once it has become a job, `Mediad-Job`.
    static func stateHeaders(_ state: ResumableUploadState, expiry: TimeInterval) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Upload-Offset": String(state.offset), "Upload-Length": String(state.upload.length),
            "Upload-Expires": HTTPDate.format(time_t(state.expiresAt(after: expiry).timeIntervalSince1970)),
        ]
        if !state.upload.metadata.isEmpty {
            headers.add(name: "Upload-Metadata", value: UploadMetadata.encode(state.upload.metadata))
        }
        if let job = state.upload.jobID { headers.add(name: "Mediad-Job", value: "/jobs/\(job)") }
        return headers
    }
}

/// A chunk's `Upload-Checksum`: the algorithm and the digest the client computed.
struct ChunkChecksum {
    var algorithm: MessageDigest.Algorithm
    var digest: [UInt8]
}
