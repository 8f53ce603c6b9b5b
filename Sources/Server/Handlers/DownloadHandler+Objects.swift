import JobStore
import Logging
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1

/// Downloads of outputs kept in the bucket of `--objects`: by default a `302` to a presigned GET, so the
/// bytes go from the store to the client without passing through mediad (the store answers `Range` and the
/// conditional fields); with `--objects-proxy`, the object streamed through mediad from the store's ranged
/// GET, after the conditional fields and `Range` were decided here as for a local file.
extension DownloadHandler {
    /// `302 Found` to a presigned GET of the output, valid for `ObjectSettings.downloadExpiry` seconds: not
    /// to be kept by caches longer than that (`private, max-age` of a fifth of it).
    func redirect(_ output: JobOutput, of record: JobRecord, to objects: JobObjects) throws -> Response {
        let location = try objects.presignedURL(job: record.id, attempt: record.attempts, output: output.name)
        return Response(
            status: .found,
            headers: [
                "location": location, "cache-control": "private, max-age=\(objects.settings.downloadExpiry / 5)",
            ])
    }

    /// The output streamed from the store (`range`'s bytes, end excluded, when given) under the headers a
    /// local download has, as 200 or 206; chunked, its length being the store's to send. A store that
    /// fails midway cuts the response short (the client sees an incomplete transfer, never a short body
    /// taken for whole).
    func proxied(
        _ output: JobOutput, of record: JobRecord, range: ByteRange?, headers: HTTPHeaders, from objects: JobObjects
    ) -> Response {
        var headers = headers
        if let range {
            headers.add(name: "content-range", value: "bytes \(range.start)-\(range.end - 1)/\(output.size)")
        }
        let id = record.id
        let (name, attempt) = (output.name, record.attempts)
        let wanted = range.map { $0.start...($0.end - 1) }
        let body = ResponseStream { writer in
            do {
                try await objects.stream(job: id, attempt: attempt, output: name, range: wanted) {
                    try await writer.write($0)
                }
            } catch {
                Logger(label: "mediad.downloads").error(
                    "streaming an output from the object store failed",
                    metadata: ["job_id": .string(id), "output": .string(name), "error": .string("\(error)")])
                writer.abandon()
            }
        }
        return Response(status: range == nil ? .ok : .partialContent, headers: headers, body: .stream(body))
    }
}
