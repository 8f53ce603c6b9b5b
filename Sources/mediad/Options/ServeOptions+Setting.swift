import Logging
import MediadHTTP
import MediadRuntime
import Server

extension ServeOptions {
    /// Each option's flag and help, and how its text, from the flag or from its environment variable, is read
    /// and checked.
    enum Setting {
        static let host = ServeSetting.text("host", help: "Address to listen on (default 127.0.0.1).")
        static let port = ServeSetting.integer(
            "port", 0...65535, help: "Port to listen on; 0 picks a free one (default 8080).")
        static let dataDir = ServeSetting.text(
            "data-dir", help: "Directory holding jobs, inputs and outputs (default ./data).")
        static let workers = ServeSetting.integer(
            "workers", 1...256, help: "Jobs run at once (default: the number of cores).")
        static let maxFetches = ServeSetting.integer(
            "max-fetches", 1...256,
            help:
                "Jobs that may fetch their URL inputs at once, beside the workers; more wait in the queue (default 4).")
        static let maxQueued = ServeSetting.integer(
            "max-queued", 0...100_000, help: "Jobs that may wait in the queue before new ones get 429 (default 64).")
        static let maxProbes = ServeSetting.integer(
            "max-probes", 1...256, help: "Probes (POST /probe) that may run at once before more get 429 (default 4).")
        static let maxUpload = ServeSetting.bytes(
            "max-upload", help: "Largest request body: bytes, or with K, M, G (default 4G).")
        static let retention = ServeSetting.duration(
            "retention", help: "How long finished jobs are kept: seconds, or with s, m, h, d (default 24h).")
        static let uploadExpiry = ServeSetting.duration(
            "upload-expiry",
            help:
                "How long a resumable (tus) upload is kept after its last chunk: seconds, or with s, m, h, d (default 24h)."
        )
        static let maxPendingUploads = ServeSetting.integer(
            "max-pending-uploads", 1...100_000,
            help:
                "Unfinished resumable (tus) uploads one API token, or all use without tokens, may hold at once; the next POST /uploads gets 429 (default 20)."
        )
        static let shutdownGrace = ServeSetting.duration(
            "shutdown-grace",
            help: "How long a shutdown waits for running jobs: seconds, or with s, m, h (default 30s).")
        static let headerTimeout = ServeSetting.duration(
            "header-timeout",
            help: "How long a client may take to send a complete request head: seconds, or with s, m (default 30s).")
        static let bodyTimeout = ServeSetting.duration(
            "body-timeout", help: "How long a request body may stall before the connection is closed (default 60s).")
        static let minUploadRate = ServeSetting.bytes(
            "min-upload-rate", zeroTurnsOff: true,
            help:
                "Bytes a second a request body, or a URL input, must average over each 10 s spent waiting on its sender: bytes, or with K, M; 0 turns it off (default 1K)."
        )
        static let sendTimeout = ServeSetting.duration(
            "send-timeout",
            help: "How long a client may take none of a response before the connection is closed (default 60s).")
        static let maxConnections = ServeSetting.integer(
            "max-connections", 1...1_000_000,
            help:
                "Client connections served at once; past them 8 more may ask for /healthz, /readyz or /metrics only, and the rest get 503 (default 1024, or fewer when `ulimit -n` cannot give each two descriptors)."
        )
        static let maxStreams = ServeSetting.integer(
            "max-streams", 1...1_000_000,
            help:
                "Event streams (GET /events, GET /jobs/{id}/events) open at once, below --max-connections; more get 429 too_many_streams (default: half of --max-connections)."
        )
        static let maxStreamsPerClient = ServeSetting.integer(
            "max-streams-per-client", 1...1_000_000,
            help:
                "Event streams one API token, or one client address, may have open at once (default: a quarter of the stream cap, at most 32)."
        )
        static let eventHeartbeat = ServeSetting.duration(
            "event-heartbeat",
            help: "How long an event stream goes without an event before a heartbeat comment (default 15s).")
        static let authTokens = ServeSetting.text(
            "auth-tokens",
            help:
                "A file of API tokens, one name:token[:admin] a line; with it every route but /healthz and /readyz needs Authorization: Bearer."
        )
        static let corsOrigins = ServeSetting<CrossOriginPolicy>(
            flag: "cors-origins", expectation: "*, none, or comma-separated origins such as https://player.example",
            help:
                "Web origins that may read outputs (CORS on the download routes): *, none, or a comma-separated list such as https://player.example (default *).",
            parse: CrossOriginPolicy.init(parsing:))
        static let openapi = ServeSetting.text(
            "openapi",
            help:
                "The OpenAPI document served at /openapi.yaml (default: <prefix>/share/mediad/openapi.yaml beside an installed binary, else the source tree's)."
        )
        static let isolation = ServeSetting<IsolationSettings.Mode>.choice(
            "isolation", help: "process: each job in a worker process (default); none: jobs in the server process.")
        static let jobMemory = ServeSetting.bytes(
            "job-memory",
            help:
                "Address space a job's worker may map: bytes, or with K, M, G (default 2G); a ladder estimated over it is refused."
        )
        static let maxOutput = ServeSetting.bytes(
            "max-output",
            help:
                "Most a job may write, in any one file and in all its outputs: bytes, or with K, M, G; beyond, output_too_large (default 16G)."
        )
        static let jobTimeoutFloor = ServeSetting.duration(
            "job-timeout-floor",
            help: "Shortest time a job may run before it is killed: seconds, or with s, m, h (default 60s).")
        static let jobTimeoutCeiling = ServeSetting.duration(
            "job-timeout-ceiling",
            help: "Longest time a job may run before it is killed: seconds, or with s, m, h (default 6h).")
        static let workerJobs = ServeSetting.integer(
            "worker-jobs", 1...100_000,
            help:
                "Jobs one worker process runs before a fresh one replaces it; 1 starts a process per job (default 50).")
        static let minFreeDisk = ServeSetting.bytes(
            "min-free-disk", zeroTurnsOff: true,
            help:
                "Free space uploads and outputs leave on the data directory's disk: bytes, or with K, M, G; 0 turns it off (default 256M)."
        )
        static let quota = ServeSetting.bytes(
            "quota", zeroTurnsOff: true,
            help:
                "Bytes one API token, or all use without tokens, may store (job inputs and outputs, uploads held): bytes, or with K, M, G; beyond, 507 quota_exceeded; 0 turns it off (default 0)."
        )
        static let logFormat = ServeSetting<LogLineHandler.Format>.choice(
            "log-format", help: "How log lines on stderr are written: text or json (default text).")
        static let logLevel = ServeSetting<Logger.Level>.choice(
            "log-level",
            help: "Least severe level logged: trace, debug, info, notice, warning, error, critical (default info).")
        static let replicaID = ServeSetting<String>(
            flag: "replica-id", expectation: "1-100 characters of A-Z a-z 0-9 - _ .",
            help:
                "This replica's name in leases and job records, with --shared-store or --database (default: hostname-pid-random).",
            accepts: { name in
                (1...100).contains(name.count)
                    && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
            })
        static let database = ServeSetting.text(
            "database",
            help:
                "A PostgreSQL URL (postgres://user:password@host:5432/db?sslmode=require) through which replicas share jobs, queue and leases; media stays in --data-dir, shared by the replicas (env MEDIAD_DATABASE_URL)."
        ).variable("MEDIAD_DATABASE_URL")
        static let leaseTTL = ServeSetting.duration(
            "lease-ttl", help: "How long a job's lease holds without renewal: seconds, or with s, m (default 30s).")
        static let heartbeat = ServeSetting.duration(
            "heartbeat", help: "How often leases are renewed and the shared store rescanned (default 5s).")
        static let webhookSecret = ServeSetting.text(
            "webhook-secret",
            help: "The key that signs job-end callbacks (Mediad-Signature); prefer MEDIAD_WEBHOOK_SECRET.")
        static let webhookAllow = ServeSetting.text(
            "webhook-allow",
            help:
                "Hosts callback_url may name, comma-separated: host names, *.domain, IP addresses (default none: callbacks off)."
        )
        static let webhookRetryBase = ServeSetting.duration(
            "webhook-retry-base",
            help:
                "Delay before the first callback retry, doubled for each next one: seconds, or with s, m (default 5s).")
        static let webhookCaFile = ServeSetting.text(
            "webhook-ca-file",
            help: "A PEM file of certificate authorities trusted for https callbacks besides the system's.")
        static let egressAllow = ServeSetting.text(
            "egress-allow",
            help: """
                What input_url and output_url may reach, comma-separated: host names, .domain (it and its subdomains), \
                IP addresses and CIDR ranges; internal addresses only when a range holds them (default none: off).
                """)
        static let egressConnectTimeout = ServeSetting.duration(
            "egress-connect-timeout",
            help:
                "How long a connection for a URL input or output may take to open: seconds, or with s, m (default 10s)."
        )
        static let egressIdleTimeout = ServeSetting.duration(
            "egress-idle-timeout",
            help:
                "How long a URL input or output transfer may go without a byte before it fails: seconds, or with s, m (default 30s)."
        )
        static let inputTimeout = ServeSetting.duration(
            "input-timeout",
            help: """
                How long all of a job's URL inputs may take to arrive before it fails with input_timeout, at most the \
                job timeout ceiling; the time counts against the job's time limit: seconds, or with s, m, h (default 1h).
                """)
        static let objects = ServeSetting.text(
            "objects",
            help: """
                Keep job inputs and outputs in an S3 bucket, s3://bucket/prefix, checked with a probe object at start; \
                credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_SHARED_CREDENTIALS_FILE (default \
                none: the data directory).
                """)
        static let s3Endpoint = ServeSetting.text(
            "s3-endpoint",
            help:
                "The S3 endpoint of --objects, scheme, host and port: http://minio:9000 (default AWS's of --s3-region)."
        )
        static let s3Region = ServeSetting.text(
            "s3-region", help: "The region requests to --objects are signed for (default us-east-1).")
        static let s3RetryWindow = ServeSetting.duration(
            "s3-retry-window",
            help: """
                How long a request to --objects is retried (backoff with jitter) while the store fails or does not \
                answer; past it, the upload fails with storage_unavailable: seconds, or with s, m (default 30s).
                """)
    }
}
