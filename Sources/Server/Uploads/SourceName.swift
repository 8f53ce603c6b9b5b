import MediadHTTP
import NIOHTTP1

/// The name a client gave its upload — the last segment of `PUT /jobs/{kind}/{filename}`, the `filename`
/// option, or a multipart part's file name — reduced to a plain file name for the job's `source_name`,
/// which names its downloads (`talk.mp4` → `talk.mkv`).
enum SourceName {
    /// Longest name kept, in UTF-8 bytes (the usual file-system limit).
    static let maxBytes = 255

    /// The last path component of `name` (after `/` or `\`: browsers and Windows clients send paths);
    /// nil when nothing usable is left: empty, `.` or `..`, a control character, or over `maxBytes`.
    static func clean(_ name: String) -> String? {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        guard !last.isEmpty, last != ".", last != "..", last.utf8.count <= maxBytes,
            !last.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return last
    }

    /// The name a raw upload gives in its path or query, checked; nil when it gives none. Both at once is
    /// `invalid_option` (two names, one job), as is a name `clean` cannot use.
    static func requested(_ request: Request) throws -> String? {
        let fromPath = request.parameters["filename"]
        let fromQuery = request.query["filename"]
        if fromPath != nil && fromQuery != nil {
            throw ServiceError(.badRequest, "invalid_option", "filename is given both in the path and the query")
        }
        guard let given = fromPath ?? fromQuery else { return nil }
        guard let name = clean(given) else {
            throw ServiceError(
                .badRequest, "invalid_option",
                "filename must be a file name of 1 to \(maxBytes) bytes without control characters")
        }
        return name
    }
}
