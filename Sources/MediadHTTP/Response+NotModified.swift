import NIOHTTP1

extension Response {
    /// Fields a 304 keeps from the 200 it stands for (RFC 9110 §15.4.5): the validators and what caches
    /// need to update their stored copy. Representation metadata such as `Content-Type`,
    /// `Content-Disposition` and `Content-Length` is left out, and there is never a body.
    private static let notModifiedFields: Set<String> = [
        "cache-control", "content-location", "date", "etag", "expires", "vary",
    ]

    /// The 304 `Not Modified` for this response.
    package var notModified: Response {
        Response(
            status: .notModified,
            headers: HTTPHeaders(
                headers.filter { Self.notModifiedFields.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }))
    }
}
