import Foundation
import JobStore
import MediadHTTP
import NIOHTTP1

extension Response {
    /// A JSON body with the service's encoding (job records: RFC 3339 times, sorted keys).
    static func json<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok) -> Response {
        json(value, status: status, encoder: JobJSON.encoder())
    }
}
