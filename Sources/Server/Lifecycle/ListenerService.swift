import MediadHTTP
import ServiceLifecycle

/// The HTTP server's listening socket as a service of the group: the last service, so the first a
/// graceful shutdown reaches. It then closes the socket — no new connections — and ends, and the rest
/// of the shutdown (jobs drained, then open connections closed) goes on behind it.
///
/// It also announces the port: only once SIGTERM and SIGINT are handled (`ShutdownSignals`, installed
/// before the group runs), so a signal sent by whoever waits for the announcement always shuts the server
/// down gracefully.
struct ListenerService: Service {
    let server: HTTPServer
    let announce: @Sendable (Int) -> Void

    func run() async throws {
        announce(server.localPort)
        // Cancellation (a second signal, a failing service) ends the wait as well: close either way.
        try? await gracefulShutdown()
        await server.stopAccepting()
    }
}
