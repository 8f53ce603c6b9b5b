import Foundation
import MediadClient
import NIOHTTP1

/// Multipart uploads: an object sent as numbered parts (each at least 5 MiB but the last), which the
/// store assembles on completion. Large media goes up this way so that a failed part is sent again alone.
///
/// An upload that is neither completed nor aborted keeps its parts (and costs storage) until aborted:
/// `listMultipartUploads` finds such leftovers.
extension S3Client {
    /// A part that was stored: its number (1 to 10000) and the ETag the store gave it, as `uploadPart`
    /// returns it for `completeMultipartUpload`. Only the store's answer makes one.
    public struct Part: Sendable, Equatable {
        public let number: Int
        public let etag: String

        /// A part stored earlier, as recorded (its ETag the store's answer then).
        public init(number: Int, etag: String) {
            self.number = number
            self.etag = etag
        }
    }

    /// An upload in progress, as `listMultipartUploads` finds it: its key (relative to the prefix), id, and
    /// when it was started (nil when the store does not say).
    public struct Upload: Sendable, Equatable {
        public let key: String
        public let uploadID: String
        public let initiated: Date?
    }

    /// Starts an upload of `key` and returns its id.
    ///
    /// A create that took more than one attempt may have started an upload whose answer was lost (a
    /// connection cut after the store acted): the other uploads of `key` are aborted then, so none is left
    /// behind. A key has one writer in mediad (keys are per job), so no other upload of it is anyone's.
    public func createMultipartUpload(_ key: String, contentType: String? = nil) async throws -> String {
        let headers: [(name: String, value: String)] = contentType.map { [("Content-Type", $0)] } ?? []
        let response = try await send(
            Request(
                method: .POST, key: try location.objectKey(key), query: [("uploads", "")],
                headers: headers, operation: "create upload of \(key)"))
        guard let id = try? S3XML.parse(response.body).text(of: "UploadId"), !id.isEmpty else {
            throw S3Error(
                code: "InvalidResponse", status: response.status,
                message: "create upload of \(key): the answer names no UploadId")
        }
        if response.attempts > 1 {
            for orphan in try await listMultipartUploads(prefix: key) where orphan.key == key && orphan.uploadID != id {
                try await abortMultipartUpload(key, uploadID: orphan.uploadID)
            }
        }
        return id
    }

    /// Stores part `number` of the upload and returns it with the ETag the store gave it, as `completeMultipartUpload` needs it.
    /// With `sha256Hex`, the store checks the part against it.
    public func uploadPart(
        _ key: String, uploadID: String, number: Int, body: HTTPClient.Body, sha256Hex: String? = nil
    ) async throws -> Part {
        guard (1...10_000).contains(number) else {
            throw S3Error(
                code: "InvalidPartNumber", status: nil, message: "part numbers run from 1 to 10000: \(number)")
        }
        let response = try await send(
            Request(
                method: .PUT, key: try location.objectKey(key),
                query: [("partNumber", String(number)), ("uploadId", uploadID)], body: body,
                payloadHash: sha256Hex ?? SigV4Signer.unsignedPayload, operation: "PUT part \(number) of \(key)"))
        guard let etag = response.headers.first(name: "ETag") else {
            throw S3Error(
                code: "InvalidResponse", status: response.status,
                message: "PUT part \(number) of \(key): the answer has no ETag")
        }
        return Part(number: number, etag: etag)
    }

    /// Assembles `parts` (in number order) into the object and returns its ETag. S3 may answer 200 and
    /// report a failure in the body, which is an `S3Error` here like any other. A retried completion that
    /// finds the upload gone (`NoSuchUpload`) while the object is there was completed by an attempt whose
    /// answer was lost, and succeeds.
    @discardableResult
    public func completeMultipartUpload(_ key: String, uploadID: String, parts: [Part]) async throws -> String {
        let list = parts.sorted { $0.number < $1.number }.map {
            "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(S3XML.escaped($0.etag))</ETag></Part>"
        }
        let document = Array(("<CompleteMultipartUpload>" + list.joined() + "</CompleteMultipartUpload>").utf8)
        let operation = "complete upload of \(key)"
        let response: Reply
        do {
            response = try await send(
                Request(
                    method: .POST, key: try location.objectKey(key), query: [("uploadId", uploadID)],
                    headers: [("Content-Type", "application/xml")], body: .bytes(document),
                    payloadHash: SigV4Signer.sha256Hex(document), operation: operation))
        } catch let error as S3Error where error.code == "NoSuchUpload" && error.attempts > 1 {
            // An earlier attempt completed it and its answer was lost: the object is there (a key has one
            // writer in mediad, so it is this upload's).
            guard let info = try await headObject(key) else { throw error }
            return info.etag
        }
        return try response.eTagOfAnswer(operation)
    }

    /// Drops the upload and its parts.
    public func abortMultipartUpload(_ key: String, uploadID: String) async throws {
        _ = try await send(
            Request(
                method: .DELETE, key: try location.objectKey(key), query: [("uploadId", uploadID)],
                operation: "abort upload of \(key)"))
    }

    /// The uploads in progress whose keys start with `prefix` (relative to the location's prefix), every
    /// page of the listing.
    ///
    /// A page that says it is truncated but names no `NextKeyMarker` (S3 leaves it out of some answers, and
    /// other stores do) is followed from its last upload's key and id, as the markers stand for; one that
    /// names neither is an `InvalidResponse`, never a listing silently cut short.
    public func listMultipartUploads(prefix: String = "") async throws -> [Upload] {
        var uploads: [Upload] = []
        var markers: [(name: String, value: String)] = []
        while true {
            let response = try await send(
                Request(
                    method: .GET, key: nil,
                    query: [("uploads", ""), ("prefix", location.prefix + prefix)] + markers,
                    operation: "list uploads under \(location.prefix + prefix)"))
            let listing = try? S3XML.parse(response.body)
            guard let listing, listing.name == "ListMultipartUploadsResult" else {
                let what = listing.map { "a <\($0.name)> document" } ?? "\(response.body.count) bytes of no XML"
                throw S3Error(
                    code: "InvalidResponse", status: response.status,
                    message: "list uploads: the answer is \(what), not a listing")
            }
            let page = listing.children("Upload")
            for upload in page {
                guard let key = upload.text(of: "Key"), let id = upload.text(of: "UploadId"),
                    key.hasPrefix(location.prefix)
                else { continue }
                uploads.append(
                    Upload(
                        key: String(key.dropFirst(location.prefix.count)), uploadID: id,
                        initiated: upload.text(of: "Initiated").flatMap(Self.timestamp)))
            }
            guard listing.text(of: "IsTruncated") == "true" else { return uploads }
            let last = page.last
            guard let key = nonEmpty(listing.text(of: "NextKeyMarker")) ?? last?.text(of: "Key") else {
                throw S3Error(
                    code: "InvalidResponse", status: response.status,
                    message: "list uploads: a truncated page with no NextKeyMarker and no upload to go on from")
            }
            let id = nonEmpty(listing.text(of: "NextUploadIdMarker")) ?? last?.text(of: "UploadId") ?? ""
            markers = [("key-marker", key), ("upload-id-marker", id)]
        }
    }

    /// An S3 timestamp (`2026-05-01T12:00:00.000Z`, the fraction optional).
    static func timestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// `text` unless it is empty.
private func nonEmpty(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
