import Dispatch
import Foundation
import JobStore
import Logging
import NIOCore
import NIOPosix

/// Starts the whole service: store, job service, HTTP server, retention sweeps and signal handling.
public enum MediadServer {
    /// Runs until SIGTERM or SIGINT, then stops accepting connections, lets running jobs finish for the
    /// grace period, requeues the rest, and exits 0. `listening` receives the bound port.
    public static func run(_ configuration: ServerConfiguration, listening: @Sendable (Int) -> Void) async throws
        -> Never
    {
        LogLineHandler.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        ServiceMetrics.bootstrap()
        let logger = Logger(label: "mediad")
        let store = try JobStore(root: configuration.dataDirectory, minimumFreeBytes: configuration.minFreeDisk)
        let threadPool = NIOThreadPool.singleton
        JobLog.install(
            verbose: ProcessInfo.processInfo.environment["MEDIAD_LOG"] == "verbose",
            unattributed: Logger(label: "mediad.libav"))
        let jobs = JobService(
            store: store, threadPool: threadPool, workers: configuration.workers, maxQueued: configuration.maxQueued,
            isolation: configuration.isolation, replicas: configuration.replicas)
        let notifier = try await WebhookNotifier.attach(to: jobs, settings: configuration.webhooks)
        try await jobs.start()
        await notifier.resume()
        let service = MediaService(jobs: jobs, store: store, threadPool: threadPool, configuration: configuration)
        let server = try await HTTPServer(
            host: configuration.host, port: configuration.port, group: MultiThreadedEventLoopGroup.singleton,
            responder: service, limits: try configuration.connectionLimits())
        listening(server.localPort)
        logger.info(
            "listening",
            metadata: [
                "host": .string(configuration.host), "port": .stringConvertible(server.localPort),
                "workers": .stringConvertible(configuration.workers),
                "isolation": .string(configuration.isolation.mode.rawValue),
                "max_connections": .stringConvertible(server.connections.maximum),
            ])

        let signals = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler {
                logger.info("shutting down", metadata: ["signal": .stringConvertible(number)])
                Task {
                    await server.stopAccepting()
                    await jobs.drain(grace: configuration.shutdownGrace)
                    exit(0)
                }
            }
            source.resume()
            return source
        }
        let sweeper = Task {
            while !Task.isCancelled {
                await jobs.sweep(retention: configuration.retention)
                _ = try? await threadPool.runIfActive {
                    try store.sweepIdempotencyKeys(lifetime: IdempotencyKey.lifetime, now: Date())
                }
                try? await Task.sleep(for: .seconds(min(60, max(1, configuration.retention / 10))))
            }
        }
        await server.run()
        sweeper.cancel()
        withExtendedLifetime(signals) {}
        await jobs.drain(grace: configuration.shutdownGrace)
        exit(0)
    }
}
