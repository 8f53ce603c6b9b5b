import ArgumentParser
import Foundation
import Server

/// `mediad serve`: runs the HTTP job service with the settings of `ServeOptions`, from flags or `MEDIAD_*`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP job service.",
        discussion: """
            Every option can also be set through the environment: MEDIAD_HOST, MEDIAD_PORT, MEDIAD_DATA_DIR, \
            MEDIAD_WORKERS, MEDIAD_MAX_FETCHES, MEDIAD_MAX_QUEUED, MEDIAD_MAX_PROBES, MEDIAD_MAX_UPLOAD, MEDIAD_RETENTION, MEDIAD_UPLOAD_EXPIRY, \
            MEDIAD_MAX_PENDING_UPLOADS, MEDIAD_SHUTDOWN_GRACE, MEDIAD_HEADER_TIMEOUT, MEDIAD_BODY_TIMEOUT, MEDIAD_MIN_UPLOAD_RATE, \
            MEDIAD_SEND_TIMEOUT, MEDIAD_MAX_CONNECTIONS, MEDIAD_MAX_STREAMS, MEDIAD_MAX_STREAMS_PER_CLIENT, \
            MEDIAD_EVENT_HEARTBEAT, MEDIAD_AUTH_TOKENS, MEDIAD_CORS_ORIGINS, \
            MEDIAD_OPENAPI, MEDIAD_ISOLATION, MEDIAD_JOB_MEMORY, MEDIAD_MAX_OUTPUT, MEDIAD_JOB_TIMEOUT_FLOOR, \
            MEDIAD_JOB_TIMEOUT_CEILING, MEDIAD_WORKER_JOBS, MEDIAD_MIN_FREE_DISK, MEDIAD_QUOTA, MEDIAD_LOG_FORMAT, MEDIAD_LOG_LEVEL, \
            MEDIAD_SHARED_STORE, MEDIAD_REPLICA_ID, MEDIAD_LEASE_TTL, MEDIAD_HEARTBEAT, MEDIAD_WEBHOOK_SECRET, \
            MEDIAD_WEBHOOK_ALLOW, MEDIAD_WEBHOOK_RETRY_BASE, MEDIAD_WEBHOOK_CA_FILE, MEDIAD_EGRESS_ALLOW, \
            MEDIAD_EGRESS_CONNECT_TIMEOUT, MEDIAD_EGRESS_IDLE_TIMEOUT, MEDIAD_INPUT_TIMEOUT, MEDIAD_OBJECTS, \
            MEDIAD_S3_ENDPOINT, MEDIAD_S3_REGION, MEDIAD_S3_PATH_STYLE, MEDIAD_S3_RETRY_WINDOW, MEDIAD_OBJECTS_PROXY, \
            MEDIAD_OBJECTS_STAGE_WHOLE. A flag wins over the environment.

            Each job runs in a `mediad worker` process, limited in address space (--job-memory), output \
            size (--max-output: any one file and all of a job's outputs), CPU time and open files, and \
            killed when it runs past its timeout: the floor plus the input's size read as 128 kbit/s audio, at most the ceiling. A worker that crashes, \
            hangs or runs out of memory fails its job (worker_crashed, timeout, out_of_memory) and nothing \
            else, and is not used again; one that ended its job takes the next, up to --worker-jobs jobs. POST /probe runs its own child under the same limits (and at most 30s), for at most \
            --max-probes requests at once; more get 429 too_many_probes. --isolation none runs jobs and \
            probes in the server process instead, for trusted input. Uploads get 507 and running jobs fail \
            with insufficient_storage before the data directory's disk has less than --min-free-disk free; \
            the declared lengths of unfinished resumable uploads count as taken. A decode whose raw frames \
            or samples would be larger than the job may write fails with output_too_large (--max-output), \
            quota_exceeded (--quota) or insufficient_storage before it decodes anything. --quota bounds the \
            bytes each API token stores (job inputs and outputs, uploads held): a request or upload that \
            would pass it gets 507 quota_exceeded, a job whose outputs would, fails with it. \
            SIGTERM or SIGINT stops accepting connections, lets running jobs finish for the grace period, \
            puts the rest back in the queue and exits 0.

            A job with URL inputs (input_url, audio_url, video_url; --egress-allow) fetches them in one of \
            --max-fetches fetch slots before it takes a worker, so a slow upstream never holds a worker. The \
            fetch is part of the job: it must end within --input-timeout (input_timeout), keep up \
            --min-upload-rate over each 10 s of waiting (input_too_slow), and its time is taken off the \
            job's time limit (never below the floor).

            Logs go to stderr, one line per request and per job state change, as text or as JSON objects \
            (--log-format json). GET /metrics serves Prometheus metrics.

            --shared-store lets several servers share one data directory (NFS, CephFS, a Kubernetes \
            ReadWriteMany volume): each job runs on the one replica holding its lease, renewed every \
            --heartbeat and taken over by another replica when not renewed for --lease-ttl. Without it a \
            server takes the data directory for itself (a lock on serve.lock there): a second server on the \
            same directory exits with an error instead of running the same jobs again.

            --objects s3://bucket/prefix puts every job's outputs into an S3 bucket before the job succeeds \
            (storage_unavailable when the store stays down); downloads answer 302 to a presigned GET, or stream \
            through mediad with --objects-proxy. A replica that runs a job whose input it lacks streams the \
            input's GET into place while the worker already reads it (checked against the recorded size and \
            SHA-256 before the job may succeed), or stages it whole first with --objects-stage-whole. A store \
            that cannot be used stops serve at start with one line (objects_unreachable, \
            objects_access_denied, objects_bucket_missing).

            Example: mediad serve --port 8080 --data-dir /var/lib/mediad --workers 2
            """)

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let configuration = try options.serverConfiguration(ServeEnvironment())
        let host = configuration.host
        try await MediadServer.run(configuration) { port in
            FileHandle.standardOutput.write(Data("mediad: listening on http://\(host):\(port)\n".utf8))
        }
    }
}
