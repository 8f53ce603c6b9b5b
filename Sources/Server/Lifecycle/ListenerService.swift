import ServiceLifecycle

/// The HTTP server's listening socket as a service of the group: the last service, so the first a
/// graceful shutdown reaches. It then closes the socket — no new connections — and ends, and the rest
/// of the shutdown (jobs drained, then open connections closed) goes on behind it.
struct ListenerService: Service {
    let server: HTTPServer

    func run() async throws {
        // Cancellation (a second signal, a failing service) ends the wait as well: close either way.
        try? await gracefulShutdown()
        await server.stopAccepting()
    }
}
