import Foundation
import JobDatabase
import Logging
import MediadHTTP
import MediadRuntime

/// Everything `mediad serve` can be told, with its defaults.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (tests); the bound port is reported by `HTTPServer.localPort`.
    public var port = 8080
    public var dataDirectory = "./data"
    /// Jobs that run at once.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Jobs fetching their URL inputs at once, beside the workers: a fetch waits on its upstream, not on a
    /// core, so it holds none of the `workers`, and four bound the connections, descriptors and partial
    /// files that slow upstreams can hold.
    public var maxFetches = 4
    /// Queued (not yet running) jobs accepted before new ones get 429.
    public var maxQueued = 64
    /// `/probe` requests under way at once before new ones get 429. Each holds a child process of up to
    /// `isolation.jobMemory` and a thread; a probe takes well under a second, so four serve dozens a second
    /// while bounding the worst case at four times the job memory, whatever the core count.
    public var maxProbes = 4
    /// Largest request body, in bytes.
    public var maxUpload: Int64 = 4 << 30
    /// Free bytes uploads and job outputs leave on the data directory's disk (507 and
    /// `insufficient_storage` below it); 0 turns the reserve off.
    public var minFreeDisk: Int64 = 256 << 20
    /// Bytes each API token (or, without tokens, all use together) may store: inputs and outputs of its
    /// jobs and its resumable uploads held (507 `quota_exceeded` beyond); 0: no quota.
    public var quota: Int64 = 0
    /// Unfinished resumable uploads each API token (or all use without tokens) may hold at once; the next
    /// `POST /uploads` gets 429 `too_many_uploads`.
    public var maxPendingUploads = 20
    /// How long finished jobs and their files are kept.
    public var retention: TimeInterval = 24 * 3600
    /// How long a tus upload is kept after its last chunk (a complete one not used by then too).
    public var uploadExpiry: TimeInterval = 24 * 3600
    /// How long a shutdown waits for running jobs before requeueing them.
    public var shutdownGrace: TimeInterval = 30
    /// How long a client may take to send a complete request head (from connecting, or from the end of
    /// the previous response on a keep-alive connection) before the connection is closed.
    public var headerTimeout: TimeInterval = 30
    /// How long a request body may stall before the connection is closed.
    public var bodyIdleTimeout: TimeInterval = 60
    /// Bytes a second a request body must average over each 10 s of waiting on the client; 0: no minimum.
    public var minUploadRate: Int64 = 1024
    /// How long a response may make no progress towards a client that does not read before the
    /// connection is closed.
    public var sendTimeout: TimeInterval = 60
    /// Client connections served at once (503 `server_busy` beyond); nil: 1024, or fewer when the
    /// descriptor limit cannot give each two descriptors besides a reserve.
    public var maxConnections: Int? = nil
    /// Event streams (`GET /events`, `GET /jobs/{id}/events`) open at once (429 `too_many_streams`
    /// beyond); nil: half of the connection cap, so that streams always leave room for other requests.
    public var maxStreams: Int? = nil
    /// Event streams one access token, or one client address, may have open at once; nil: a quarter of
    /// the stream cap, at most 32 (and at least 1).
    public var maxStreamsPerClient: Int? = nil
    /// How long an event stream goes without an event before a `: heartbeat` comment.
    public var eventHeartbeat: TimeInterval = 15
    /// API tokens; nil serves everyone (the default, for a server on loopback or behind a trusted proxy).
    public var accessTokens: AccessTokens? = nil
    /// Which web origins may read outputs (`Access-Control-Allow-Origin` on the download routes and their
    /// preflights): any (`*`, the default), only these, or none.
    public var corsOrigins = CrossOriginPolicy.anyOrigin
    /// Where `GET /openapi.yaml` reads the spec from.
    public var openAPIPath: String? = nil
    /// Whether jobs run in worker processes, and their limits there.
    public var isolation = IsolationSettings()
    /// How log lines on stderr are written: `text` for people, `json` for log pipelines.
    public var logFormat = LogLineHandler.Format.text
    /// The least severe level logged (`info` logs every request and job transition).
    public var logLevel = Logger.Level.info
    /// Shared-store mode for several replicas on one data directory; nil for a single server (the default).
    public var replicas: ReplicaSettings? = nil
    /// The PostgreSQL database that replicas share their jobs through (`--database`); with it, `replicas`
    /// is set too. Nil: the data directory holds the jobs.
    public var database: DatabaseSettings? = nil
    /// The bucket job outputs go to before a job succeeds, and how downloads reach them (`--objects`);
    /// nil keeps outputs in the data directory alone (the default).
    public var objects: ObjectSettings? = nil
    /// Job-end callbacks (`callback_url`): secret, allowed hosts, retries.
    public var webhooks = WebhookSettings()
    /// What URL inputs may be fetched from (`--egress-allow`) and how; empty: URL inputs are off.
    public var egress = EgressPolicy()

    public init() {}
}
