import ArgumentParser
import Foundation
import Logging
import Server

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP job service.",
        discussion: """
            Every option can also be set through the environment: MEDIAD_HOST, MEDIAD_PORT, MEDIAD_DATA_DIR, \
            MEDIAD_WORKERS, MEDIAD_MAX_QUEUED, MEDIAD_MAX_PROBES, MEDIAD_MAX_UPLOAD, MEDIAD_RETENTION, \
            MEDIAD_SHUTDOWN_GRACE, MEDIAD_HEADER_TIMEOUT, MEDIAD_BODY_TIMEOUT, MEDIAD_MIN_UPLOAD_RATE, \
            MEDIAD_SEND_TIMEOUT, MEDIAD_MAX_CONNECTIONS, MEDIAD_AUTH_TOKENS, \
            MEDIAD_OPENAPI, MEDIAD_ISOLATION, MEDIAD_JOB_MEMORY, MEDIAD_MAX_OUTPUT, MEDIAD_JOB_TIMEOUT_FLOOR, \
            MEDIAD_JOB_TIMEOUT_CEILING, MEDIAD_MIN_FREE_DISK, MEDIAD_LOG_FORMAT, MEDIAD_LOG_LEVEL, \
            MEDIAD_SHARED_STORE, MEDIAD_REPLICA_ID, MEDIAD_LEASE_TTL, MEDIAD_HEARTBEAT, MEDIAD_WEBHOOK_SECRET, \
            MEDIAD_WEBHOOK_ALLOW, MEDIAD_WEBHOOK_RETRY_BASE, MEDIAD_WEBHOOK_CA_FILE. A flag wins over the environment.

            Each job runs in its own `mediad worker` process, limited in address space (--job-memory), output \
            file size (--max-output), CPU time and open files, and killed when it runs past its timeout: the \
            floor plus the input's size read as 128 kbit/s audio, at most the ceiling. A worker that crashes, \
            hangs or runs out of memory fails its job (worker_crashed, timeout, out_of_memory) and nothing \
            else. POST /probe runs its own child under the same limits (and at most 30s), for at most \
            --max-probes requests at once; more get 429 too_many_probes. --isolation none runs jobs and \
            probes in the server process instead, for trusted input. Uploads get 507 and running jobs fail \
            with insufficient_storage before the data directory's disk has less than --min-free-disk free. \
            SIGTERM or SIGINT stops accepting connections, lets running jobs finish for the grace period, \
            puts the rest back in the queue and exits 0.

            Logs go to stderr, one line per request and per job state change, as text or as JSON objects \
            (--log-format json). GET /metrics serves Prometheus metrics.

            --shared-store lets several servers share one data directory (NFS, CephFS, a Kubernetes \
            ReadWriteMany volume): each job runs on the one replica holding its lease, renewed every \
            --heartbeat and taken over by another replica when not renewed for --lease-ttl.

            Example: mediad serve --port 8080 --data-dir /var/lib/mediad --workers 2
            """)

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (default 8080).")
    var port: Int?

    @Option(help: "Directory holding jobs, inputs and outputs (default ./data).")
    var dataDir: String?

    @Option(help: "Jobs run at once (default: the number of cores).")
    var workers: Int?

    @Option(help: "Jobs that may wait in the queue before new ones get 429 (default 64).")
    var maxQueued: Int?

    @Option(help: "Probes (POST /probe) that may run at once before more get 429 (default 4).")
    var maxProbes: Int?

    @Option(help: "Largest request body: bytes, or with K, M, G (default 4G).")
    var maxUpload: String?

    @Option(help: "How long finished jobs are kept: seconds, or with s, m, h, d (default 24h).")
    var retention: String?

    @Option(help: "How long a shutdown waits for running jobs: seconds, or with s, m, h (default 30s).")
    var shutdownGrace: String?

    @Option(help: "How long a client may take to send a complete request head: seconds, or with s, m (default 30s).")
    var headerTimeout: String?

    @Option(help: "How long a request body may stall before the connection is closed (default 60s).")
    var bodyTimeout: String?

    @Option(
        help:
            "Bytes a second a request body must average over each 10 s spent waiting on the client: bytes, or with K, M; 0 turns it off (default 1K)."
    )
    var minUploadRate: String?

    @Option(help: "How long a client may take none of a response before the connection is closed (default 60s).")
    var sendTimeout: String?

    @Option(
        help:
            "Client connections served at once; more get 503 (default 1024, or fewer when `ulimit -n` cannot give each two descriptors)."
    )
    var maxConnections: Int?

    @Option(
        help:
            "A file of API tokens, one name:token[:admin] a line; with it every route but /healthz and /readyz needs Authorization: Bearer."
    )
    var authTokens: String?

    @Option(help: "The OpenAPI document served at /openapi.yaml (default: the one in the source tree).")
    var openapi: String?

    @Option(help: "process: each job in a worker process (default); none: jobs in the server process.")
    var isolation: String?

    @Option(help: "Address space a job's worker may map: bytes, or with K, M, G (default 2G).")
    var jobMemory: String?

    @Option(help: "Largest file a job may write: bytes, or with K, M, G (default 16G).")
    var maxOutput: String?

    @Option(help: "Shortest time a job may run before it is killed: seconds, or with s, m, h (default 60s).")
    var jobTimeoutFloor: String?

    @Option(help: "Longest time a job may run before it is killed: seconds, or with s, m, h (default 6h).")
    var jobTimeoutCeiling: String?

    @Option(
        help:
            "Free space uploads and outputs leave on the data directory's disk: bytes, or with K, M, G; 0 turns it off (default 256M)."
    )
    var minFreeDisk: String?

    @Option(help: "How log lines on stderr are written: text or json (default text).")
    var logFormat: String?

    @Option(help: "Least severe level logged: trace, debug, info, notice, warning, error, critical (default info).")
    var logLevel: String?

    @Flag(help: "Share the data directory with other replicas (env MEDIAD_SHARED_STORE=1).")
    var sharedStore = false

    @Option(help: "This replica's name in leases and job records (default: hostname-pid-random).")
    var replicaID: String?

    @Option(help: "How long a job's lease holds without renewal: seconds, or with s, m (default 30s).")
    var leaseTTL: String?

    @Option(help: "How often leases are renewed and the shared store rescanned (default 5s).")
    var heartbeat: String?

    @Option(help: "The key that signs job-end callbacks (Mediad-Signature); prefer MEDIAD_WEBHOOK_SECRET.")
    var webhookSecret: String?

    @Option(
        help:
            "Hosts callback_url may name, comma-separated: host names, *.domain, IP addresses (default none: callbacks off)."
    )
    var webhookAllow: String?

    @Option(
        help: "Delay before the first callback retry, doubled for each next one: seconds, or with s, m (default 5s).")
    var webhookRetryBase: String?

    @Option(help: "A PEM file of certificate authorities trusted for https callbacks besides the system's.")
    var webhookCaFile: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func value(_ flag: String?, _ name: String) -> String? { flag ?? environment["MEDIAD_" + name] }
        var configuration = ServerConfiguration()
        if let host = value(host, "HOST") { configuration.host = host }
        if let port = try value(port.map(String.init), "PORT").map({ try Self.integer($0, "port", 0...65535) }) {
            configuration.port = port
        }
        if let directory = value(dataDir, "DATA_DIR") { configuration.dataDirectory = directory }
        if let workers = try value(workers.map(String.init), "WORKERS").map({ try Self.integer($0, "workers", 1...256) }
        ) {
            configuration.workers = workers
        }
        if let queued = try value(maxQueued.map(String.init), "MAX_QUEUED").map({
            try Self.integer($0, "max-queued", 0...100_000)
        }) {
            configuration.maxQueued = queued
        }
        if let probes = try value(maxProbes.map(String.init), "MAX_PROBES").map({
            try Self.integer($0, "max-probes", 1...256)
        }) {
            configuration.maxProbes = probes
        }
        if let size = try value(maxUpload, "MAX_UPLOAD").map({ try Self.bytes($0, "max-upload") }) {
            configuration.maxUpload = size
        }
        if let size = try value(minFreeDisk, "MIN_FREE_DISK").map({
            $0 == "0" ? 0 : try Self.bytes($0, "min-free-disk")
        }) {
            configuration.minFreeDisk = size
        }
        try isolationSettings(&configuration.isolation, value)
        if let time = try value(retention, "RETENTION").map({ try Self.seconds($0, "retention") }) {
            configuration.retention = time
        }
        if let time = try value(headerTimeout, "HEADER_TIMEOUT").map({ try Self.seconds($0, "header-timeout") }) {
            configuration.headerTimeout = time
        }
        if let time = try value(bodyTimeout, "BODY_TIMEOUT").map({ try Self.seconds($0, "body-timeout") }) {
            configuration.bodyIdleTimeout = time
        }
        if let rate = try value(minUploadRate, "MIN_UPLOAD_RATE").map({
            $0 == "0" ? 0 : try Self.bytes($0, "min-upload-rate")
        }) {
            configuration.minUploadRate = rate
        }
        if let time = try value(sendTimeout, "SEND_TIMEOUT").map({ try Self.seconds($0, "send-timeout") }) {
            guard time > 0 else { throw ValidationError("--send-timeout must be more than 0") }
            configuration.sendTimeout = time
        }
        if let count = try value(maxConnections.map(String.init), "MAX_CONNECTIONS").map({
            try Self.integer($0, "max-connections", 1...1_000_000)
        }) {
            configuration.maxConnections = count
        }
        if let time = try value(shutdownGrace, "SHUTDOWN_GRACE").map({ try Self.seconds($0, "shutdown-grace") }) {
            configuration.shutdownGrace = time
        }
        configuration.openAPIPath = value(openapi, "OPENAPI")
        try logSettings(&configuration, value)
        configuration.replicas = try replicaSettings(value)
        try webhookSettings(&configuration.webhooks, value)
        if let path = value(authTokens, "AUTH_TOKENS") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("cannot read the token file \(path)")
            }
            do {
                configuration.accessTokens = try AccessTokens(fileContents: text)
            } catch {
                throw ValidationError("the token file \(path): \(error)")
            }
        }
        let host = configuration.host
        try await MediadServer.run(configuration) { port in
            FileHandle.standardOutput.write(Data("mediad: listening on http://\(host):\(port)\n".utf8))
        }
    }

    private func logSettings(_ configuration: inout ServerConfiguration, _ value: (String?, String) -> String?) throws {
        if let format = value(logFormat, "LOG_FORMAT") {
            guard let parsed = LogLineHandler.Format(rawValue: format) else {
                throw ValidationError("--log-format must be text or json, not '\(format)'")
            }
            configuration.logFormat = parsed
        }
        if let level = value(logLevel, "LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level) else {
                let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--log-level must be one of \(names), not '\(level)'")
            }
            configuration.logLevel = parsed
        }
    }

    private func isolationSettings(_ settings: inout IsolationSettings, _ value: (String?, String) -> String?) throws {
        if let mode = value(isolation, "ISOLATION") {
            guard let parsed = IsolationSettings.Mode(rawValue: mode) else {
                throw ValidationError("--isolation must be process or none, not '\(mode)'")
            }
            settings.mode = parsed
        }
        if let size = try value(jobMemory, "JOB_MEMORY").map({ try Self.bytes($0, "job-memory") }) {
            settings.jobMemory = size
        }
        if let size = try value(maxOutput, "MAX_OUTPUT").map({ try Self.bytes($0, "max-output") }) {
            settings.maxOutput = size
        }
        if let time = try value(jobTimeoutFloor, "JOB_TIMEOUT_FLOOR").map({ try Self.seconds($0, "job-timeout-floor") })
        {
            settings.timeoutFloor = time
        }
        if let time = try value(jobTimeoutCeiling, "JOB_TIMEOUT_CEILING").map({
            try Self.seconds($0, "job-timeout-ceiling")
        }) {
            settings.timeoutCeiling = time
        }
        guard settings.timeoutFloor <= settings.timeoutCeiling else {
            throw ValidationError("--job-timeout-floor must not be longer than --job-timeout-ceiling")
        }
    }

    /// Shared-store settings, or nil unless --shared-store (or MEDIAD_SHARED_STORE=1) asks for them.
    private func replicaSettings(_ value: (String?, String) -> String?) throws -> ReplicaSettings? {
        let shared = sharedStore ? "1" : value(nil, "SHARED_STORE") ?? "0"
        guard ["1", "true", "yes"].contains(shared.lowercased()) else {
            guard ["0", "false", "no", ""].contains(shared.lowercased()) else {
                throw ValidationError("MEDIAD_SHARED_STORE must be 1 or 0, not '\(shared)'")
            }
            if replicaID != nil || leaseTTL != nil || heartbeat != nil {
                throw ValidationError("--replica-id, --lease-ttl and --heartbeat need --shared-store")
            }
            return nil
        }
        var settings = ReplicaSettings()
        if let name = value(replicaID, "REPLICA_ID") {
            guard (1...100).contains(name.count),
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
            else { throw ValidationError("--replica-id must be 1-100 characters of A-Z a-z 0-9 - _ ., not '\(name)'") }
            settings.replicaID = name
        }
        if let time = try value(leaseTTL, "LEASE_TTL").map({ try Self.seconds($0, "lease-ttl") }) {
            settings.leaseTTL = time
        }
        if let time = try value(heartbeat, "HEARTBEAT").map({ try Self.seconds($0, "heartbeat") }) {
            settings.heartbeat = time
        }
        guard settings.heartbeat > 0, settings.heartbeat * 2 <= settings.leaseTTL else {
            throw ValidationError("--heartbeat must be positive and at most half of --lease-ttl")
        }
        return settings
    }

    private func webhookSettings(_ settings: inout WebhookSettings, _ value: (String?, String) -> String?) throws {
        settings.secret = value(webhookSecret, "WEBHOOK_SECRET").flatMap { $0.isEmpty ? nil : $0 }
        if let list = value(webhookAllow, "WEBHOOK_ALLOW") {
            do {
                settings.allowedHosts = try HostPattern.list(list)
            } catch {
                throw ValidationError("--webhook-allow: \(error)")
            }
        }
        if let time = try value(webhookRetryBase, "WEBHOOK_RETRY_BASE").map({
            try Self.seconds($0, "webhook-retry-base")
        }) {
            guard time > 0 else { throw ValidationError("--webhook-retry-base must be more than 0") }
            settings.retryBase = time
        }
        if let path = value(webhookCaFile, "WEBHOOK_CA_FILE") {
            do {
                settings.tls = try ClientTLS(extraAuthorities: path)
            } catch {
                throw ValidationError("--webhook-ca-file: \(error)")
            }
        }
        if !settings.allowedHosts.isEmpty && settings.secret == nil {
            throw ValidationError("--webhook-allow needs --webhook-secret (or MEDIAD_WEBHOOK_SECRET) to sign callbacks")
        }
    }

    static func integer(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError(
                "--\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    static func bytes(_ text: String, _ name: String) throws -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        let upper = text.uppercased()
        let scale = upper.last.flatMap { units[$0] } ?? 1
        guard let number = Int64(scale == 1 ? upper : String(upper.dropLast())), number > 0,
            case let (size, overflow) = number.multipliedReportingOverflow(by: scale), !overflow
        else {
            throw ValidationError("--\(name) must be a size such as 4294967296 or 4G, below 8 EiB, not '\(text)'")
        }
        return size
    }

    /// The longest duration any option takes: a century, far from the nanosecond counts that overflow.
    static let maxSeconds: TimeInterval = 100 * 365 * 86400

    static func seconds(_ text: String, _ name: String) throws -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let scale = text.last.flatMap { units[$0] } ?? 1
        guard let number = Double(scale == 1 && text.last?.isNumber == true ? text : String(text.dropLast())),
            number.isFinite, number >= 0, number * scale <= maxSeconds
        else {
            throw ValidationError(
                "--\(name) must be a duration such as 3600, 90s, 30m or 24h (at most 100 years), not '\(text)'")
        }
        return number * scale
    }
}
