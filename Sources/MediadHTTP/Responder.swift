import NIOHTTP1

/// Turns a request into a response; implemented by the service.
package protocol Responder: Sendable {
    func respond(to request: Request) async -> Response

    /// The answer to a request that needs no I/O, no waiting and no body, made at once on the event loop
    /// (a job's JSON from memory), with the template of the route it took for logs and metrics; nil to
    /// serve the request with `respond(to:)`. `ImmediateAnswers` asks only for `GET`s without a body,
    /// conditional fields or an `Expect`; the answer gets what `Connection` adds to every answer.
    func immediateResponse(to head: HTTPRequestHead) -> (response: Response, route: String)?
}

extension Responder {
    /// Nothing is answered at once: every request goes to `respond(to:)`.
    package func immediateResponse(to head: HTTPRequestHead) -> (response: Response, route: String)? { nil }
}
