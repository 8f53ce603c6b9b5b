/// The url at which the API serves output `name` of job `id`, for the `url` a record lists: the runtime
/// stores it without knowing any route.
package typealias OutputLink = @Sendable (_ id: String, _ name: String) -> String
