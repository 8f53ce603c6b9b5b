import Logging
import MediadHTTP
import MediadRuntime
import Server

extension ServeOptions {
    /// How each option's text, from its flag or from its environment variable, is read and checked.
    enum Setting {
        static let host = ServeSetting.text("host")
        static let port = ServeSetting.integer("port", 0...65535)
        static let dataDir = ServeSetting.text("data-dir")
        static let workers = ServeSetting.integer("workers", 1...256)
        static let maxFetches = ServeSetting.integer("max-fetches", 1...256)
        static let maxQueued = ServeSetting.integer("max-queued", 0...100_000)
        static let maxProbes = ServeSetting.integer("max-probes", 1...256)
        static let maxUpload = ServeSetting.bytes("max-upload")
        static let retention = ServeSetting.duration("retention")
        static let uploadExpiry = ServeSetting.duration("upload-expiry")
        static let maxPendingUploads = ServeSetting.integer("max-pending-uploads", 1...100_000)
        static let shutdownGrace = ServeSetting.duration("shutdown-grace")
        static let headerTimeout = ServeSetting.duration("header-timeout")
        static let bodyTimeout = ServeSetting.duration("body-timeout")
        static let minUploadRate = ServeSetting.bytes("min-upload-rate", zeroTurnsOff: true)
        static let sendTimeout = ServeSetting.duration("send-timeout")
        static let maxConnections = ServeSetting.integer("max-connections", 1...1_000_000)
        static let maxStreams = ServeSetting.integer("max-streams", 1...1_000_000)
        static let maxStreamsPerClient = ServeSetting.integer("max-streams-per-client", 1...1_000_000)
        static let eventHeartbeat = ServeSetting.duration("event-heartbeat")
        static let authTokens = ServeSetting.text("auth-tokens")
        static let corsOrigins = ServeSetting<CrossOriginPolicy>(
            flag: "cors-origins", expectation: "*, none, or comma-separated origins such as https://player.example",
            parse: CrossOriginPolicy.init(parsing:))
        static let openapi = ServeSetting.text("openapi")
        static let isolation = ServeSetting<IsolationSettings.Mode>.choice("isolation")
        static let jobMemory = ServeSetting.bytes("job-memory")
        static let maxOutput = ServeSetting.bytes("max-output")
        static let jobTimeoutFloor = ServeSetting.duration("job-timeout-floor")
        static let jobTimeoutCeiling = ServeSetting.duration("job-timeout-ceiling")
        static let workerJobs = ServeSetting.integer("worker-jobs", 1...100_000)
        static let minFreeDisk = ServeSetting.bytes("min-free-disk", zeroTurnsOff: true)
        static let quota = ServeSetting.bytes("quota", zeroTurnsOff: true)
        static let logFormat = ServeSetting<LogLineHandler.Format>.choice("log-format")
        static let logLevel = ServeSetting<Logger.Level>.choice("log-level")
        static let replicaID = ServeSetting<String>(
            flag: "replica-id", expectation: "1-100 characters of A-Z a-z 0-9 - _ .",
            accepts: { name in
                (1...100).contains(name.count)
                    && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
            })
        static let leaseTTL = ServeSetting.duration("lease-ttl")
        static let heartbeat = ServeSetting.duration("heartbeat")
        static let webhookSecret = ServeSetting.text("webhook-secret")
        static let webhookAllow = ServeSetting.text("webhook-allow")
        static let webhookRetryBase = ServeSetting.duration("webhook-retry-base")
        static let webhookCaFile = ServeSetting.text("webhook-ca-file")
        static let egressAllow = ServeSetting.text("egress-allow")
        static let egressConnectTimeout = ServeSetting.duration("egress-connect-timeout")
        static let egressIdleTimeout = ServeSetting.duration("egress-idle-timeout")
        static let inputTimeout = ServeSetting.duration("input-timeout")
    }
}
