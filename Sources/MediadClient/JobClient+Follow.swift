import Foundation

/// `mediad submit`'s download while the job runs: the primary output of a running job that the server can
/// follow (written front to back: MPEG-TS, ADTS, fragmented MP4 without a global `sidx` …) is downloaded as
/// the worker writes it, so the command ends soon after the job does instead of starting the download then.
extension JobClient {
    /// An output downloaded while its job ran, complete in a hidden file of the output directory and not yet
    /// checked against the job's final record.
    public struct Followed: Sendable {
        /// The hidden file holding the bytes.
        public var path: String
        public var size: Int64
        /// Lowercase hex.
        public var sha256: String

        /// Whether these are exactly the bytes of `output` as the final record lists it.
        public func matches(_ output: Job.Output) -> Bool {
            output.size == size && output.sha256 == sha256
        }

        /// Moves the file to `destination`, where the output belongs.
        public func move(to destination: String) throws {
            guard rename(path, destination) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw Failure(code: "io_error", message: "cannot rename into \(destination): \(reason)")
            }
        }

        /// Removes the file: the job failed, or listed no output with these bytes.
        public func discard() {
            unlink(path)
        }
    }

    /// Downloads job `id`'s primary output (`GET /jobs/{id}/output`) into a hidden file of `directory` while
    /// the job writes it. While the output is not written yet (`409 output_not_written`: the job is queued,
    /// or has not started it) it waits up to a second for the job's end and asks again. The server ends
    /// the body cleanly only when the job succeeded and lists the output with exactly the bytes sent; any
    /// other end — an output it cannot follow (`output_not_ready`), a job that failed or ended first, a
    /// transfer cut by the job's failure or a broken connection — gives nil and leaves no file (the partial
    /// file is removed as the transfer fails). An output the server sends as it is now rather than following
    /// it (a package's master playlist or MPD) comes back whole at once; like any, it is kept only when the
    /// finished job lists those bytes (`Followed.matches`). Never throws: what could not be followed is
    /// downloaded after the job's end, which reports any error.
    public func follow(_ id: String, into directory: String) async -> Followed? {
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(".mediad-\(id).followed").path
        while !Task.isCancelled {
            let result: HTTPClient.Download
            do {
                result = try await client.download(
                    server.with(target: base + "/jobs/\(id)/output"), headers: authorization, to: path)
            } catch {
                return nil
            }
            if (200..<300).contains(result.status) {
                return Followed(path: path, size: result.size, sha256: result.sha256)
            }
            guard result.status == 409, Self.failure(result.status, result.errorBody).code == "output_not_written"
            else { return nil }
            guard let job = try? await poll(id, seconds: 1), !job.isFinished else { return nil }
        }
        return nil
    }
}
