import ArgumentParser
import Foundation
import Logging
import MediadHTTP
import MediadRuntime
import Server

/// Every option of `mediad serve`, in the order `--help` lists them.
///
/// Each option is declared by its `Setting`, which names its flag, holds its help and reads its `MEDIAD_*`
/// environment variable the same way when the flag is not given; `serverConfiguration(_:)` lays both over
/// the defaults of `ServerConfiguration`.
/// The options carry no argument-parser defaults, so that an option left out is told apart from one given.
struct ServeOptions: ParsableArguments {
    @Option(Setting.host) var host: String?
    @Option(Setting.port) var port: Int?
    @Option(Setting.dataDir) var dataDir: String?
    @Option(Setting.workers) var workers: Int?
    @Option(Setting.maxFetches) var maxFetches: Int?
    @Option(Setting.maxQueued) var maxQueued: Int?
    @Option(Setting.maxProbes) var maxProbes: Int?
    @Option(Setting.maxUpload) var maxUpload: Int64?
    @Option(Setting.retention) var retention: TimeInterval?
    @Option(Setting.uploadExpiry) var uploadExpiry: TimeInterval?
    @Option(Setting.maxPendingUploads) var maxPendingUploads: Int?
    @Option(Setting.shutdownGrace) var shutdownGrace: TimeInterval?
    @Option(Setting.headerTimeout) var headerTimeout: TimeInterval?
    @Option(Setting.bodyTimeout) var bodyTimeout: TimeInterval?
    @Option(Setting.minUploadRate) var minUploadRate: Int64?
    @Option(Setting.sendTimeout) var sendTimeout: TimeInterval?
    @Option(Setting.maxConnections) var maxConnections: Int?
    @Option(Setting.maxStreams) var maxStreams: Int?
    @Option(Setting.maxStreamsPerClient) var maxStreamsPerClient: Int?
    @Option(Setting.eventHeartbeat) var eventHeartbeat: TimeInterval?
    @Option(Setting.authTokens) var authTokens: String?
    @Option(Setting.corsOrigins) var corsOrigins: CrossOriginPolicy?
    @Option(Setting.openapi) var openapi: String?
    @Option(Setting.isolation) var isolation: IsolationSettings.Mode?
    @Option(Setting.jobMemory) var jobMemory: Int64?
    @Option(Setting.maxOutput) var maxOutput: Int64?
    @Option(Setting.jobTimeoutFloor) var jobTimeoutFloor: TimeInterval?
    @Option(Setting.jobTimeoutCeiling) var jobTimeoutCeiling: TimeInterval?
    @Option(Setting.workerJobs) var workerJobs: Int?
    @Option(Setting.minFreeDisk) var minFreeDisk: Int64?
    @Option(Setting.quota) var quota: Int64?
    @Option(Setting.logFormat) var logFormat: LogLineHandler.Format?
    @Option(Setting.logLevel) var logLevel: Logger.Level?

    @Flag(help: "Share the data directory with other replicas (env MEDIAD_SHARED_STORE=1).")
    var sharedStore = false

    @Option(Setting.database) var database: String?
    @Option(Setting.replicaID) var replicaID: String?
    @Option(Setting.leaseTTL) var leaseTTL: TimeInterval?
    @Option(Setting.heartbeat) var heartbeat: TimeInterval?
    @Option(Setting.webhookSecret) var webhookSecret: String?
    @Option(Setting.webhookAllow) var webhookAllow: String?
    @Option(Setting.webhookRetryBase) var webhookRetryBase: TimeInterval?
    @Option(Setting.webhookCaFile) var webhookCaFile: String?
    @Option(Setting.egressAllow) var egressAllow: String?
    @Option(Setting.egressConnectTimeout) var egressConnectTimeout: TimeInterval?
    @Option(Setting.egressIdleTimeout) var egressIdleTimeout: TimeInterval?
    @Option(Setting.inputTimeout) var inputTimeout: TimeInterval?
    @Option(Setting.objects) var objects: String?
    @Option(Setting.s3Endpoint) var s3Endpoint: String?
    @Option(Setting.s3Region) var s3Region: String?
    @Option(Setting.s3RetryWindow) var s3RetryWindow: TimeInterval?

    @Flag(
        help:
            "Address the bucket in the path (host/bucket/key), for stores without virtual-hosted buckets (env MEDIAD_S3_PATH_STYLE=1)."
    )
    var s3PathStyle = false

    @Flag(
        help:
            "Stream outputs in the bucket through mediad instead of redirecting to the store (env MEDIAD_OBJECTS_PROXY=1)."
    )
    var objectsProxy = false

    @Flag(
        help:
            "Stage a job's inputs from the bucket whole before its worker starts, not while it reads them (env MEDIAD_OBJECTS_STAGE_WHOLE=1)."
    )
    var objectsStageWhole = false
}
