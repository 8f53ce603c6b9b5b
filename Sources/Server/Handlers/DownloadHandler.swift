import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

/// The download routes of a job's outputs: one output (`GET /jobs/{id}/outputs/{name}`, the
/// primary one at `GET /jobs/{id}/output`), all of them as one tar archive (`GET /jobs/{id}/outputs.tar`,
/// in `OutputArchive`), and the CORS preflights of the three, for web players on other origins.
struct DownloadHandler {
    let access: JobAccess
    let store: JobStore
    let threadPool: NIOThreadPool
    /// `--retention` and `--auth-tokens` (for `Cache-Control`), `--cors-origins` (for the preflights).
    let configuration: ServerConfiguration

    /// `OPTIONS` of a download route: the CORS preflight `--cors-origins` allows.
    func preflight(_ request: Request) -> Response {
        configuration.corsOrigins.preflight(request)
    }

    /// `GET /jobs/{id}/outputs/{name}` and `GET /jobs/{id}/output`: a listed output of a succeeded job (with
    /// `--objects`, a `302` to the store or the object streamed through: `DownloadHandler+Objects`; a
    /// running job's output that is written front to back is followed instead: `follow`), sent with sendfile,
    /// with `ETag` (the SHA-256), the conditional fields (`If-Match`, `If-None-Match`, `If-Range`) and `Range`. Only outputs in the job record are served:
    /// they were complete under their final name before the record listed them. A name that could leave
    /// the job's outputs (`..`, an empty folder, a hidden file: `JobStore.isValidOutputName`) is 400 before
    /// the job is looked up.
    func download(_ request: Request, name: String?) async throws -> Response {
        if let name, !JobStore.isValidOutputName(name) {
            throw ServiceError(
                .badRequest, "invalid_output_name",
                "'\(name)' is not an output name: folders and file names of A-Z a-z 0-9 . _ - separated by /, "
                    + "none empty or starting with a dot")
        }
        let record = try await access.job(request)
        guard record.state == .succeeded else { return try await follow(record, name: name) }
        guard let output = name.map({ wanted in record.outputs.first { $0.name == wanted } }) ?? record.outputs.first
        else {
            throw ServiceError.notFound("job \(record.id) has no output \(name ?? "")")
        }
        let objects = access.jobs.objects
        if let objects, !objects.settings.proxy { return try redirect(output, of: record, to: objects) }
        let tag = EntityTag(output.sha256)
        var headers: HTTPHeaders = [
            "content-type": output.contentType,
            "etag": tag.headerValue,
            "accept-ranges": "bytes",
            "cache-control": caching(record),
            "content-disposition": ContentDisposition.attachment(filename: downloadName(output.name, record)),
        ]
        let preconditions = Preconditions(request.head.headers)
        if try preconditions.evaluate(request.method, current: tag) == .notModified {
            return Response(status: .ok, headers: headers).notModified
        }
        let rangeField = preconditions.rangeApplies(current: tag) ? request.head.headers.first(name: "range") : nil
        let range = try ByteRange(rangeField, size: output.size)
        if output.size == 0 { return Response(status: .ok, headers: headers) }
        if let objects { return proxied(output, of: record, range: range, headers: headers, from: objects) }
        let path = store.outputPath(id: record.id, name: output.name)
        let (start, end) = (range?.start ?? 0, range?.end ?? output.size)
        let handle = try await threadPool.runIfActive { () -> NIOFileHandle in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else {
                throw ServiceError(
                    .internalServerError, StoreError.Code.ioError.rawValue,
                    "cannot open output \(output.name): \(String(cString: strerror(errno)))")
            }
            return NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        }
        let region = FileRegion(fileHandle: handle, readerIndex: Int(start), endIndex: Int(end))
        if range != nil { headers.add(name: "content-range", value: "bytes \(start)-\(end - 1)/\(output.size)") }
        return Response(status: range == nil ? .ok : .partialContent, headers: headers, body: .file(region))
    }

    /// `Cache-Control` of an output. Once listed an output never changes (ids are never reused, files are
    /// complete under their final name before the record lists them), so it is `immutable`, fresh for as
    /// long as retention keeps it. With API tokens it is also `private`: an output belongs to one token and
    /// a shared cache must not hand it to another. Without tokens any cache may keep it, which needs no
    /// `public` (only a request with `Authorization` would).
    func caching(_ record: JobRecord) -> String {
        let expiry = (record.finishedAt ?? Date()).addingTimeInterval(configuration.retention)
        let freshness = "max-age=\(max(0, Int(expiry.timeIntervalSinceNow))), immutable"
        return configuration.accessTokens == nil ? freshness : "private, " + freshness
    }

    /// `talk.mkv` for the primary output of a job whose upload was `talk.mp4`; the output's own file name
    /// otherwise (`seg_00001.m4s` for `720p/seg_00001.m4s`).
    func downloadName(_ outputName: String, _ record: JobRecord) -> String {
        let ext = URL(fileURLWithPath: outputName).pathExtension
        let fileName = URL(fileURLWithPath: outputName).lastPathComponent
        guard outputName.hasPrefix("output."), let source = record.sourceName else { return fileName }
        let stem = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        return stem.isEmpty ? outputName : "\(stem).\(ext)"
    }
}
