import Digests
import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadClient
import MediadHTTP
import MediadRuntime
import NIOHTTP1

/// The inputs a submission names by URL instead of sending them: `input_url` (mux: `audio_url`,
/// `video_url`), as query parameters or form fields like the options, each checked against the egress
/// policy at once, so a URL that can never be fetched is refused with 400 before a job exists.
struct InputURLs {
    /// Input name (as the job stores it) → the URL as given and as parsed.
    private(set) var urls: [String: (text: String, url: HTTPURL)] = [:]

    var isEmpty: Bool { urls.isEmpty }
    var names: Set<String> { Set(urls.keys) }

    /// The option naming the URL of `part`: `input_url`, `audio_url`, `video_url`.
    static func field(of part: JobInputPart) -> String { part.storedName + "_url" }

    /// Moves the URL options of `kind` out of `values` (they are not the kind's options) and checks them.
    mutating func take(_ kind: JobKind, from values: inout [String: String], policy: EgressPolicy) throws {
        for part in kind.inputs {
            let field = Self.field(of: part)
            guard let text = values.removeValue(forKey: field) else { continue }
            guard urls[part.storedName] == nil else {
                throw ServiceError(.badRequest, "invalid_option", "\(field) is given both in the query and the form")
            }
            do {
                urls[part.storedName] = (text, try policy.check(text, field: field))
            } catch let error as MediaError {
                throw ServiceError(error)
            }
        }
    }

    /// The sources the job's record lists, in the order of the kind's parts.
    func sources(_ kind: JobKind) -> [InputSource]? {
        guard !isEmpty else { return nil }
        return kind.inputs.compactMap { part in
            urls[part.storedName].map { InputSource(name: part.storedName, url: $0.url.redacted) }
        }
    }

    /// The file name the first URL's path ends in (percent-decoded), for the job's `source_name` when
    /// the client gave none.
    var sourceName: String? {
        let first = urls.sorted { $0.key < $1.key }.first?.value.url.target.prefix { $0 != "?" } ?? ""
        return SourceName.clean(String(first).removingPercentEncoding ?? String(first))
    }

    /// The whole URLs, kept in the job's `egress.json`.
    var targets: [String: String] { urls.mapValues(\.text) }

    /// What identifies each input for an `Idempotency-Key`: the SHA-256 of its URL (the URL itself may
    /// carry a signature, and idempotency entries are stored).
    var fingerprints: [String: String] {
        urls.mapValues { entry in
            let hasher = SHA256Hasher()
            Array(entry.text.utf8).withUnsafeBytes { hasher.update($0) }
            return "url:" + hasher.finalize()
        }
    }
}
