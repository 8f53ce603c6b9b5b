import Foundation
import JobStore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

extension DownloadHandler {
    /// `GET /jobs/{id}/outputs/{name}` of a job that has not succeeded. A queued or running job's output
    /// that its kind writes front to back (`OutputGrowth.appended`: MPEG-TS, ADTS, raw streams, Y4M,
    /// fragmented MP4 without a global `sidx`) is sent as it is written and followed to the job's end
    /// (`OutputFollower`), chunked, with no `Content-Length` and no `ETag` (its SHA-256 is not known yet); a
    /// `Range` or conditional field is ignored then (the whole output is sent, 200). An output completed when
    /// the job ends is 409 `output_not_ready`; one not written yet 409 `output_not_written`; one the job never
    /// writes 404. An output written whole under its name while the job runs (`OutputGrowth.replaced`: a
    /// package's playlists, MPD and segments) is sent as it is now (`current`). A job that ended without
    /// success is 409 `not_ready`, as before.
    func follow(_ record: JobRecord, name: String?) async throws -> Response {
        guard !record.state.isTerminal else {
            throw ServiceError(
                .conflict, "not_ready", "job \(record.id) is \(record.state.rawValue); outputs exist once it succeeded")
        }
        let wanted = try name ?? record.kind.primaryOutput(for: record.options)
        guard let growth = try record.kind.growth(ofOutput: wanted, options: record.options) else {
            throw ServiceError.notFound("job \(record.id) has no output \(wanted)")
        }
        if growth == .replaced { return try await current(record, name: wanted) }
        guard growth == .appended else {
            throw ServiceError(
                .conflict, "output_not_ready",
                "output \(wanted) of job \(record.id) is completed or rewritten when the job ends; it can be "
                    + "downloaded once the job succeeded (job \(record.state.rawValue))")
        }
        let directory = store.outputDirectory(id: record.id)
        guard record.state == .running, try await threadPool.runIfActive({ Self.isWritten(wanted, in: directory) })
        else {
            throw ServiceError(
                .conflict, "output_not_written",
                "job \(record.id) has not written output \(wanted) yet (job \(record.state.rawValue)); retry later")
        }
        let follower = OutputFollower(
            jobs: access.jobs, id: record.id, name: wanted, directory: directory, threadPool: threadPool)
        let headers: HTTPHeaders = [
            "content-type": OutputContentType.of(wanted),
            "cache-control": "no-store",
            "content-disposition": ContentDisposition.attachment(filename: downloadName(wanted, record)),
        ]
        return Response(status: .ok, headers: headers, body: .stream(ResponseStream { await follower.send(to: $0) }))
    }

    /// A running job's output that is written whole under its name, possibly replaced later by a newer
    /// version (`OutputGrowth.replaced`): the file under its final name as it is now, 200 with its
    /// `Content-Length`, `Cache-Control: no-cache` (a player fetches an `EVENT` playlist or a dynamic MPD
    /// again for the new segments) and no `ETag` (the SHA-256 is computed when the job ends); `Range` and
    /// the conditional fields are ignored, as for a followed output. The descriptor is opened here: a newer
    /// version renamed over the name later does not change the one being sent. 409 `output_not_written`
    /// before it exists.
    func current(_ record: JobRecord, name: String) async throws -> Response {
        let path = store.outputDirectory(id: record.id) + "/" + name
        let opened = try await threadPool.runIfActive { () -> (NIOFileHandle, Int)? in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { return nil }
            var status = stat()
            guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                return nil
            }
            return (NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor), Int(status.st_size))
        }
        guard record.state == .running, let (handle, size) = opened else {
            if let (handle, _) = opened { try handle.close() }
            throw ServiceError(
                .conflict, "output_not_written",
                "job \(record.id) has not written output \(name) yet (job \(record.state.rawValue)); retry later")
        }
        let headers: HTTPHeaders = [
            "content-type": OutputContentType.of(name),
            "cache-control": "no-cache",
            "content-disposition": ContentDisposition.attachment(filename: downloadName(name, record)),
        ]
        guard size > 0 else {
            try handle.close()
            return Response(status: .ok, headers: headers)
        }
        let region = FileRegion(fileHandle: handle, readerIndex: 0, endIndex: size)
        return Response(status: .ok, headers: headers, body: .file(region))
    }

    /// Whether the worker has begun writing output `name` (`openWritten` finds it).
    static func isWritten(_ name: String, in directory: String) -> Bool {
        guard let descriptor = openWritten(name, in: directory) else { return false }
        close(descriptor)
        return true
    }

    /// A descriptor of the file the worker writes for output `name`: its temporary file
    /// (`DurableFile.temporaryPath`, the newest if an earlier attempt left one), else the file under its
    /// final name, renamed there already; nil when neither exists.
    static func openWritten(_ name: String, in directory: String) -> Int32? {
        let path = directory + "/" + name
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = "." + (path as NSString).lastPathComponent + ".partial-"
        let partials = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(prefix) }
            .compactMap { entry -> (String, Date)? in
                let full = folder + "/" + entry
                let modified = try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date
                return modified.map { (full, $0) }
            }
            .sorted { $0.1 > $1.1 }
        // A temporary file renamed between the listing and its opening is found under the final name.
        for candidate in partials.map(\.0) + [path] {
            let descriptor = open(candidate, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            if descriptor >= 0 { return descriptor }
        }
        return nil
    }
}
