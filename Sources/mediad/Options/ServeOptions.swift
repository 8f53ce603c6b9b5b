import ArgumentParser
import Foundation
import Logging
import MediadHTTP
import MediadRuntime
import Server

/// Every option of `mediad serve`, in the order `--help` lists them.
///
/// Each option is read by its `Setting`, which reads its `MEDIAD_*` environment variable the same way when
/// the flag is not given; `serverConfiguration(_:)` lays both over the defaults of `ServerConfiguration`.
/// The options carry no argument-parser defaults, so that an option left out is told apart from one given.
struct ServeOptions: ParsableArguments {
    @Option(help: "Address to listen on (default 127.0.0.1).", transform: Setting.host.read)
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (default 8080).", transform: Setting.port.read)
    var port: Int?

    @Option(help: "Directory holding jobs, inputs and outputs (default ./data).", transform: Setting.dataDir.read)
    var dataDir: String?

    @Option(help: "Jobs run at once (default: the number of cores).", transform: Setting.workers.read)
    var workers: Int?

    @Option(
        help:
            "Jobs that may fetch their URL inputs at once, beside the workers; more wait in the queue (default 4).",
        transform: Setting.maxFetches.read)
    var maxFetches: Int?

    @Option(
        help: "Jobs that may wait in the queue before new ones get 429 (default 64).",
        transform: Setting.maxQueued.read)
    var maxQueued: Int?

    @Option(
        help: "Probes (POST /probe) that may run at once before more get 429 (default 4).",
        transform: Setting.maxProbes.read)
    var maxProbes: Int?

    @Option(help: "Largest request body: bytes, or with K, M, G (default 4G).", transform: Setting.maxUpload.read)
    var maxUpload: Int64?

    @Option(
        help: "How long finished jobs are kept: seconds, or with s, m, h, d (default 24h).",
        transform: Setting.retention.read)
    var retention: TimeInterval?

    @Option(
        help:
            "How long a resumable (tus) upload is kept after its last chunk: seconds, or with s, m, h, d (default 24h).",
        transform: Setting.uploadExpiry.read)
    var uploadExpiry: TimeInterval?

    @Option(
        help:
            "Unfinished resumable (tus) uploads one API token, or all use without tokens, may hold at once; the next POST /uploads gets 429 (default 20).",
        transform: Setting.maxPendingUploads.read)
    var maxPendingUploads: Int?

    @Option(
        help: "How long a shutdown waits for running jobs: seconds, or with s, m, h (default 30s).",
        transform: Setting.shutdownGrace.read)
    var shutdownGrace: TimeInterval?

    @Option(
        help: "How long a client may take to send a complete request head: seconds, or with s, m (default 30s).",
        transform: Setting.headerTimeout.read)
    var headerTimeout: TimeInterval?

    @Option(
        help: "How long a request body may stall before the connection is closed (default 60s).",
        transform: Setting.bodyTimeout.read)
    var bodyTimeout: TimeInterval?

    @Option(
        help:
            "Bytes a second a request body, or a URL input, must average over each 10 s spent waiting on its sender: bytes, or with K, M; 0 turns it off (default 1K).",
        transform: Setting.minUploadRate.read)
    var minUploadRate: Int64?

    @Option(
        help: "How long a client may take none of a response before the connection is closed (default 60s).",
        transform: Setting.sendTimeout.read)
    var sendTimeout: TimeInterval?

    @Option(
        help:
            "Client connections served at once; past them 8 more may ask for /healthz, /readyz or /metrics only, and the rest get 503 (default 1024, or fewer when `ulimit -n` cannot give each two descriptors).",
        transform: Setting.maxConnections.read)
    var maxConnections: Int?

    @Option(
        help:
            "Event streams (GET /events, GET /jobs/{id}/events) open at once, below --max-connections; more get 429 too_many_streams (default: half of --max-connections).",
        transform: Setting.maxStreams.read)
    var maxStreams: Int?

    @Option(
        help:
            "Event streams one API token, or one client address, may have open at once (default: a quarter of the stream cap, at most 32).",
        transform: Setting.maxStreamsPerClient.read)
    var maxStreamsPerClient: Int?

    @Option(
        help: "How long an event stream goes without an event before a heartbeat comment (default 15s).",
        transform: Setting.eventHeartbeat.read)
    var eventHeartbeat: TimeInterval?

    @Option(
        help:
            "A file of API tokens, one name:token[:admin] a line; with it every route but /healthz and /readyz needs Authorization: Bearer.",
        transform: Setting.authTokens.read)
    var authTokens: String?

    @Option(
        help:
            "Web origins that may read outputs (CORS on the download routes): *, none, or a comma-separated list such as https://player.example (default *).",
        transform: Setting.corsOrigins.read)
    var corsOrigins: CrossOriginPolicy?

    @Option(
        help:
            "The OpenAPI document served at /openapi.yaml (default: <prefix>/share/mediad/openapi.yaml beside an installed binary, else the source tree's).",
        transform: Setting.openapi.read)
    var openapi: String?

    @Option(
        help: "process: each job in a worker process (default); none: jobs in the server process.",
        transform: Setting.isolation.read)
    var isolation: IsolationSettings.Mode?

    @Option(
        help:
            "Address space a job's worker may map: bytes, or with K, M, G (default 2G); a ladder estimated over it is refused.",
        transform: Setting.jobMemory.read)
    var jobMemory: Int64?

    @Option(
        help:
            "Most a job may write, in any one file and in all its outputs: bytes, or with K, M, G; beyond, output_too_large (default 16G).",
        transform: Setting.maxOutput.read)
    var maxOutput: Int64?

    @Option(
        help: "Shortest time a job may run before it is killed: seconds, or with s, m, h (default 60s).",
        transform: Setting.jobTimeoutFloor.read)
    var jobTimeoutFloor: TimeInterval?

    @Option(
        help: "Longest time a job may run before it is killed: seconds, or with s, m, h (default 6h).",
        transform: Setting.jobTimeoutCeiling.read)
    var jobTimeoutCeiling: TimeInterval?

    @Option(
        help: "Jobs one worker process runs before a fresh one replaces it; 1 starts a process per job (default 50).",
        transform: Setting.workerJobs.read)
    var workerJobs: Int?

    @Option(
        help:
            "Free space uploads and outputs leave on the data directory's disk: bytes, or with K, M, G; 0 turns it off (default 256M).",
        transform: Setting.minFreeDisk.read)
    var minFreeDisk: Int64?

    @Option(
        help:
            "Bytes one API token, or all use without tokens, may store (job inputs and outputs, uploads held): bytes, or with K, M, G; beyond, 507 quota_exceeded; 0 turns it off (default 0).",
        transform: Setting.quota.read)
    var quota: Int64?

    @Option(
        help: "How log lines on stderr are written: text or json (default text).", transform: Setting.logFormat.read)
    var logFormat: LogLineHandler.Format?

    @Option(
        help: "Least severe level logged: trace, debug, info, notice, warning, error, critical (default info).",
        transform: Setting.logLevel.read)
    var logLevel: Logger.Level?

    @Flag(help: "Share the data directory with other replicas (env MEDIAD_SHARED_STORE=1).")
    var sharedStore = false

    @Option(
        help: "This replica's name in leases and job records (default: hostname-pid-random).",
        transform: Setting.replicaID.read)
    var replicaID: String?

    @Option(
        help: "How long a job's lease holds without renewal: seconds, or with s, m (default 30s).",
        transform: Setting.leaseTTL.read)
    var leaseTTL: TimeInterval?

    @Option(
        help: "How often leases are renewed and the shared store rescanned (default 5s).",
        transform: Setting.heartbeat.read)
    var heartbeat: TimeInterval?

    @Option(
        help: "The key that signs job-end callbacks (Mediad-Signature); prefer MEDIAD_WEBHOOK_SECRET.",
        transform: Setting.webhookSecret.read)
    var webhookSecret: String?

    @Option(
        help:
            "Hosts callback_url may name, comma-separated: host names, *.domain, IP addresses (default none: callbacks off).",
        transform: Setting.webhookAllow.read)
    var webhookAllow: String?

    @Option(
        help: "Delay before the first callback retry, doubled for each next one: seconds, or with s, m (default 5s).",
        transform: Setting.webhookRetryBase.read)
    var webhookRetryBase: TimeInterval?

    @Option(
        help: "A PEM file of certificate authorities trusted for https callbacks besides the system's.",
        transform: Setting.webhookCaFile.read)
    var webhookCaFile: String?

    @Option(
        help: """
            What input_url and output_url may reach, comma-separated: host names, .domain (it and its subdomains), \
            IP addresses and CIDR ranges; internal addresses only when a range holds them (default none: off).
            """,
        transform: Setting.egressAllow.read)
    var egressAllow: String?

    @Option(
        help: "How long a connection for a URL input or output may take to open: seconds, or with s, m (default 10s).",
        transform: Setting.egressConnectTimeout.read)
    var egressConnectTimeout: TimeInterval?

    @Option(
        help:
            "How long a URL input or output transfer may go without a byte before it fails: seconds, or with s, m (default 30s).",
        transform: Setting.egressIdleTimeout.read)
    var egressIdleTimeout: TimeInterval?

    @Option(
        help: """
            How long all of a job's URL inputs may take to arrive before it fails with input_timeout, at most the \
            job timeout ceiling; the time counts against the job's time limit: seconds, or with s, m, h (default 1h).
            """,
        transform: Setting.inputTimeout.read)
    var inputTimeout: TimeInterval?
}
