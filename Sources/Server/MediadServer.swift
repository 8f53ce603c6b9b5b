import Foundation
import JobDatabase
import JobStore
import Logging
import MediadClient
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOPosix
import ObjectStorage
import ServiceLifecycle

/// Starts the whole service: store, job service, HTTP server, webhook deliveries, retention and upload sweeps, as
/// services of one `ServiceGroup`.
public enum MediadServer {
    /// Runs until SIGTERM or SIGINT, then shuts down in order — the reverse of the group's list: stop
    /// accepting connections; stop sweeping and delivering (deliveries resume at the next start); let
    /// running jobs finish for the grace period and requeue the rest; close the connections still open —
    /// and returns. `listening` receives the bound port once signals are trapped. The data directory's
    /// `StoreLock` is held from the start to the return: a second server on it that would run the same
    /// jobs does not start.
    public static func run(_ configuration: ServerConfiguration, listening: @escaping @Sendable (Int) -> Void)
        async throws
    {
        LogLineHandler.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let limits = try configuration.connectionLimits()
        let streamLimits = try configuration.streamLimits(maxConnections: limits.maxConnections)
        ServiceMetrics.bootstrap()
        let logger = Logger(label: "mediad")
        let store = try JobStore(root: configuration.dataDirectory, minimumFreeBytes: configuration.minFreeDisk)
        let lock = try StoreLock(root: store.root, shared: configuration.replicas != nil)
        let threadPool = NIOThreadPool.singleton
        JobLog.install(
            verbose: ProcessInfo.processInfo.environment["MEDIAD_LOG"] == "verbose",
            unattributed: Logger(label: "mediad.libav"))
        let database = try await openDatabase(configuration, logger: logger)
        let objects = try await openObjects(configuration)
        let jobs = JobService(
            store: store, threadPool: threadPool, workers: configuration.workers,
            maxFetches: configuration.maxFetches, maxQueued: configuration.maxQueued,
            isolation: configuration.isolation,
            storage: StorageLedger.Limits(
                quota: configuration.quota, maxPendingUploads: configuration.maxPendingUploads),
            replicas: configuration.replicas, database: database,
            fetcher: try configuration.egress.isEnabled
                ? InputFetcher(
                    policy: configuration.egress, store: store, threadPool: threadPool,
                    maxSize: configuration.maxUpload, minimumRate: configuration.minUploadRate,
                    timeCeiling: configuration.isolation.timeoutCeiling) : nil,
            objects: objects, outputLink: ServiceRoute.outputURL)
        let notifier = try WebhookNotifier(settings: configuration.webhooks, jobs: jobs)
        let deliverer = try await OutputDeliverer.attach(to: jobs, policy: configuration.egress, notifier: notifier)
        let uploads = uploadRecords(
            configuration, database: database, store: store, threadPool: threadPool, objects: objects)
        let service = MediaService(
            jobs: jobs, store: store, threadPool: threadPool, configuration: configuration, notifier: notifier,
            streamLimits: streamLimits, uploadRecords: uploads)
        // Bound before any job starts, so a server that cannot listen has touched no job. Connections the
        // kernel accepts meanwhile wait until the server runs.
        let server = try await bind(configuration, limits: limits, responder: service)
        // The uploads stored hold quota and reserved room before any job or request is measured against them.
        jobs.ledger.replaceUploads(try await uploads.states())
        try await jobs.start()
        await deliverer.resume()
        logger.info(
            "listening",
            metadata: [
                "host": .string(configuration.host), "port": .stringConvertible(server.localPort),
                "workers": .stringConvertible(configuration.workers),
                "isolation": .string(configuration.isolation.mode.rawValue),
                "max_connections": .stringConvertible(server.connections.maximum),
                "max_streams": .stringConvertible(streamLimits.overall),
                "max_streams_per_client": .stringConvertible(streamLimits.perClient),
            ])
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: server, serviceName: "connections"),
            .init(service: JobLifecycle(jobs: jobs, grace: configuration.shutdownGrace), serviceName: "jobs"),
            .init(service: deliverer, serviceName: "deliveries"),
            .init(service: notifier, serviceName: "webhooks"),
            .init(
                service: RetentionSweeper(
                    jobs: jobs, retention: configuration.retention, idempotencyLifetime: IdempotencyKey.lifetime
                ),
                serviceName: "retention"),
            .init(
                service: ResumableUploadSweeper(
                    records: uploads, expiry: configuration.uploadExpiry, ledger: jobs.ledger),
                serviceName: "uploads"),
            .init(service: ListenerService(server: server, announce: listening), serviceName: "listener"),
        ]
        if let objects { services.append(.init(service: ObjectStoreWatch(objects: objects), serviceName: "objects")) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, logger: logger))
        try ShutdownSignals.install(group)
        try await group.run()
        await database?.close()
        logger.info("stopped")
        withExtendedLifetime(lock) {}
    }

    /// The replicas' database, its schema migrated, when `--database` names one. A database that cannot be
    /// used is a configuration error of one line (`DatabaseError` names what is wrong), never a hang.
    private static func openDatabase(_ configuration: ServerConfiguration, logger: Logger) async throws
        -> JobDatabase?
    {
        guard var settings = configuration.database else { return nil }
        settings.replica = configuration.replicas?.replicaID
        do {
            return try await JobDatabase.open(settings, logger: Logger(label: "mediad.database"))
        } catch let error as DatabaseError {
            throw ServerConfiguration.Invalid(description: error.description)
        }
    }

    /// The bucket of `--objects`, checked with a probe object: a store that cannot be used is a
    /// configuration error of one line with its code (`ObjectStoreProbe.Refusal`), before any job runs.
    private static func openObjects(_ configuration: ServerConfiguration) async throws -> JobObjects? {
        guard let settings = configuration.objects else { return nil }
        let credentials: SigningCredentials
        do {
            credentials = try S3Credentials.load()
        } catch {
            throw ServerConfiguration.Invalid(
                description: ObjectStoreProbe.Refusal(.credentialsMissing, error.description).description)
        }
        let client = S3Client(
            location: settings.location, credentials: credentials, http: try HTTPClient(),
            retry: S3RetryPolicy(window: settings.retryWindow), logger: Logger(label: "mediad.objects"))
        // The probe tries each request 4 times, quietly, as it always has: a store that does not answer at
        // start is one line of its own, not a retry window of warnings before it.
        var probe = client
        probe.retry = S3RetryPolicy(window: settings.retryWindow, attempts: 4)
        probe.logger = nil
        do {
            try await ObjectStoreProbe.check(probe)
        } catch {
            throw ServerConfiguration.Invalid(description: error.description)
        }
        return JobObjects(settings: settings, client: client)
    }

    /// Where tus uploads' records are kept: in the replicas' database with `--database` (their bytes in the
    /// bucket with `--objects` too), else beside their bytes in the data directory.
    private static func uploadRecords(
        _ configuration: ServerConfiguration, database: JobDatabase?, store: JobStore, threadPool: NIOThreadPool,
        objects: JobObjects?
    ) -> any UploadRecords {
        guard let database, let replicas = configuration.replicas else {
            return FileUploadRecords(store: store, threadPool: threadPool)
        }
        return DatabaseUploadRecords(
            database: database, store: store, threadPool: threadPool, replicas: replicas, objects: objects)
    }

    /// The HTTP server listening on the configured address; an address in use is a configuration error that
    /// says which setting changes it.
    private static func bind(
        _ configuration: ServerConfiguration, limits: HTTPServer.Limits, responder: MediaService
    ) async throws -> HTTPServer {
        do {
            return try await HTTPServer(
                host: configuration.host, port: configuration.port, group: MultiThreadedEventLoopGroup.singleton,
                responder: responder, limits: limits,
                accessLog: AccessLog(lines: AccessLines(format: configuration.logFormat, level: configuration.logLevel))
            )
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ServerConfiguration.Invalid(
                description:
                    "\(configuration.host):\(configuration.port) is in use by another process; choose another port "
                    + "with --port or MEDIAD_PORT")
        }
    }
}
