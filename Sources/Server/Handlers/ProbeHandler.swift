import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// `POST /probe`: what a file holds, the same description a job's admission reads, without making a job.
struct ProbeHandler {
    /// `--max-upload`.
    let maxUpload: Int64
    /// The `--max-probes` slots, shared by every probe request.
    let slots: ProbeSlots
    let prober: MediaProber
    let uploads: UploadReceiver
    let diskSpace: DiskSpaceCheck
    let threadPool: NIOThreadPool

    /// `POST /probe`: takes one of the `--max-probes` slots (429 `too_many_probes` when none is free, before
    /// the body is read), receives the file, probes it in a child process (or, with `--isolation none`, in
    /// this one), answers with `MediaInfo` capped for reporting, and removes the upload. Its one option,
    /// `loudness` (a query parameter, or a form field of a multipart upload), measures each audio track's
    /// loudness too.
    func probe(_ request: Request) async throws -> Response {
        if let length = request.contentLength, length > maxUpload {
            throw ServiceError(
                .payloadTooLarge, "payload_too_large",
                "the body is over the \(maxUpload)-byte upload limit")
        }
        guard slots.take() else {
            throw ServiceError(
                .tooManyRequests, "too_many_probes",
                "\(slots.limit) probes are under way, the most this server runs at once; retry shortly",
                headers: [("Retry-After", String(Self.retryAfterSeconds))])
        }
        defer { slots.give() }
        var loudness = try Self.loudness(request.query, in: "query")
        try await diskSpace.check(request)
        let file: String
        if let boundary = try MultipartBoundary(request.head.headers)?.boundary {
            let form = try await uploads.receiveMultipart(request.body, boundary: boundary, fileParts: ["file"])
            guard let part = form.files["file"] else {
                throw ServiceError(
                    .badRequest, "missing_input", "no input: send the file as the body or as part 'file'")
            }
            file = part.file.path
            do {
                loudness = try loudness || Self.loudness(form.fields, in: "form")
            } catch {
                await threadPool.removeUpload(at: file)
                throw error
            }
        } else {
            file = try await uploads.receiveRaw(request.body).path
        }
        do {
            let info = try await prober.describe(file, loudness: loudness)
            await threadPool.removeUpload(at: file)
            return .json(info, encoder: MediaJSON.encoder())
        } catch {
            await threadPool.removeUpload(at: file)
            throw error
        }
    }

    /// How long a client refused for want of a probe slot is asked to wait: probes take well under a second.
    static let retryAfterSeconds = 1

    /// The `loudness` option among `values` (the query or the form's fields); `invalid_option` for any
    /// other key or a value that is not a boolean.
    static func loudness(_ values: [String: String], in place: String) throws -> Bool {
        if let unknown = values.keys.sorted().first(where: { $0 != "loudness" }) {
            throw ServiceError(
                .badRequest, "invalid_option", "probe takes one option, loudness (got '\(unknown)' in the \(place))")
        }
        guard let raw = values["loudness"] else { return false }
        switch raw.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default:
            throw ServiceError(
                .badRequest, "invalid_option", "invalid value '\(raw)' for option loudness: expected true or false")
        }
    }
}
