import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1

extension Request {
    /// Whether the caller may see `record`: anyone without tokens; with tokens, its owner or an admin.
    /// Another token's job is answered as if it did not exist.
    func maySee(_ record: JobRecord) -> Bool { Self.may(caller, see: record) }

    /// `maySee` for a caller kept apart from its request (an event stream outlives the request's handler).
    static func may(_ caller: RequestCaller?, see record: JobRecord) -> Bool {
        guard let caller else { return true }
        return caller.isAdmin || record.owner == caller.name
    }

    /// A path parameter of the route the request took; 400 when the route has none of that name.
    func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw ServiceError.invalidRequest("missing path parameter \(name)") }
        return value
    }
}
