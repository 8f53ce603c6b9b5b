import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

extension DownloadHandler {
    /// `GET /jobs/{id}/outputs.tar`: every output of a succeeded job, primary first, as one ustar archive
    /// (`TarHeader`) made while it is sent: no copy of the outputs is made, files are read in blocks on
    /// the thread pool, and each block waits for the client to take the previous one, so neither the
    /// event loop nor memory depends on the outputs' size. With `--objects` the outputs are read from the
    /// bucket (any replica answers, whichever ran the job).
    func downloadArchive(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
        guard record.state == .succeeded else {
            throw ServiceError(
                .conflict, "not_ready", "job \(record.id) is \(record.state.rawValue); outputs exist once it succeeded")
        }
        let objects = access.jobs.objects
        let entries = record.outputs.map { output in
            OutputArchive.Entry(
                name: output.name,
                source: objects.map { .object($0, job: record.id, attempt: record.attempts, output: output.name) }
                    ?? .file(store.outputPath(id: record.id, name: output.name)),
                size: output.size)
        }
        let archive = OutputArchive(
            entries: entries, modified: Int64((record.finishedAt ?? Date()).timeIntervalSince1970),
            threadPool: threadPool)
        let stem = record.sourceName.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? ""
        return Response(
            status: .ok,
            headers: [
                "content-type": "application/x-tar", "cache-control": caching(record),
                "content-disposition": ContentDisposition.attachment(
                    filename: (stem.isEmpty ? record.id : stem) + ".tar"),
            ],
            body: .stream(ResponseStream { await archive.send(to: $0) }))
    }
}
