import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOHTTP1

/// The job an upload's `Upload-Metadata` asks for: `kind` names it, `filename` the file (the job's
/// `source_name`), `callback_url` its callback, and every other key is one of the kind's options.
/// `filetype` (the MIME type browser tus clients add) is ignored. Checked when the upload is created, so
/// that a bad option is refused before a byte is sent, and read again when the last byte arrives.
struct UploadJobRequest {
    var kind: JobKind
    /// The part the upload becomes: the kind's lone input.
    var part: String
    var options: [String: String]
    var callbackURL: String?
    var sourceName: String?

    /// Nil when the metadata names no `kind`: the upload is then only a file for `upload=` to name. 400
    /// `invalid_option` (or the engine's code) for a kind, name or option the job would refuse.
    init?(_ metadata: [String: String], webhooks: WebhookSettings) throws {
        guard let name = metadata["kind"] else { return nil }
        guard let kind = JobKind(rawValue: name) else {
            throw ServiceError(
                .badRequest, "invalid_option",
                "no job kind '\(name.prefix(40))'; kinds: \(JobKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let part = kind.loneInput?.name else {
            let parts = kind.inputs.map { "\($0.name)_upload=<id>" }.joined(separator: "&")
            throw ServiceError(
                .badRequest, "invalid_option",
                "\(kind) takes \(kind.inputs.count) inputs: upload each without a kind, then POST /jobs/\(kind)?\(parts)"
            )
        }
        var values = metadata
        for key in ["kind", "filename", "filetype", "callback_url"] { values[key] = nil }
        if let filename = metadata["filename"] {
            guard let clean = SourceName.clean(filename) else {
                throw ServiceError(
                    .badRequest, "invalid_option",
                    "filename must be a file name of 1 to \(SourceName.maxBytes) bytes without control characters")
            }
            sourceName = clean
        }
        callbackURL = metadata["callback_url"]
        if let callbackURL { _ = try webhooks.check(callbackURL) }
        do {
            _ = try kind.options(parsing: values)
        } catch let error as MediaError {
            throw ServiceError(error)
        }
        self.kind = kind
        self.part = part
        options = values
    }
}
