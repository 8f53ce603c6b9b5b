import Foundation
import MediadHTTP
import NIOHTTP1

/// `Upload-Metadata`: comma-separated pairs of a key and its value in base64 (`filename dGFsay5tcDQ=,kind
/// cmVtdXg=`), a key alone for an empty value. Keys are printable ASCII without spaces or commas, values
/// UTF-8 text; at most `maxPairs` pairs. Anything else is 400 `invalid_metadata`.
enum UploadMetadata {
    static let maxPairs = 32

    static func parse(_ header: String?) throws -> [String: String] {
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else { return [:] }
        var metadata: [String: String] = [:]
        for pair in header.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = pair.trimmingCharacters(in: .whitespaces).split(
                separator: " ", omittingEmptySubsequences: true)
            guard let key = fields.first.map(String.init), fields.count <= 2,
                key.utf8.allSatisfy({ (33...126).contains($0) })
            else { throw invalid("each pair is a key, a space and a base64 value") }
            guard metadata[key] == nil else { throw invalid("the key \(key.prefix(40)) is given twice") }
            guard fields.count == 2 else {
                metadata[key] = ""
                continue
            }
            guard let data = Data(base64Encoded: String(fields[1])), let value = String(data: data, encoding: .utf8)
            else { throw invalid("the value of \(key.prefix(40)) is not base64 of UTF-8 text") }
            metadata[key] = value
        }
        guard metadata.count <= maxPairs else { throw invalid("more than \(maxPairs) pairs") }
        return metadata
    }

    /// The header value for `metadata`, keys sorted.
    static func encode(_ metadata: [String: String]) -> String {
        metadata.sorted { $0.key < $1.key }.map { key, value in
            value.isEmpty ? key : key + " " + Data(value.utf8).base64EncodedString()
        }.joined(separator: ",")
    }

    private static func invalid(_ reason: String) -> ServiceError {
        ServiceError(.badRequest, "invalid_metadata", "Upload-Metadata: \(reason)")
    }
}
