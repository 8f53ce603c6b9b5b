import NIOHTTP1

/// The boundary of a `multipart/form-data` request, or nil for a raw body.
package struct MultipartBoundary: Sendable {
    package let boundary: String

    package init?(_ headers: HTTPHeaders) throws {
        guard let type = headers.first(name: "content-type"), type.lowercased().hasPrefix("multipart/") else {
            return nil
        }
        guard type.lowercased().hasPrefix("multipart/form-data") else {
            throw ServiceError(.unsupportedMediaType, "invalid_request", "only multipart/form-data is accepted")
        }
        guard let value = HeaderParameters(type)["boundary"] else {
            throw ServiceError.invalidRequest("multipart/form-data without a boundary")
        }
        guard !value.isEmpty, value.count <= 70 else { throw ServiceError.invalidRequest("bad multipart boundary") }
        boundary = value
    }
}
