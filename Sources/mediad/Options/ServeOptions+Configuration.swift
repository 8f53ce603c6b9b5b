import ArgumentParser
import Foundation
import JobDatabase
import MediadClient
import MediadRuntime
import ObjectStorage
import Server

extension ServeOptions {
    /// The defaults of `ServerConfiguration`, overridden by the environment, overridden by the flags; a usage
    /// error (exit status 64) naming the flag for a value out of its range or a combination that cannot work.
    func serverConfiguration(_ environment: ServeEnvironment) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        try environment.assign(host, Setting.host, to: &configuration.host)
        try environment.assign(port, Setting.port, to: &configuration.port)
        try environment.assign(dataDir, Setting.dataDir, to: &configuration.dataDirectory)
        try environment.assign(workers, Setting.workers, to: &configuration.workers)
        try environment.assign(maxFetches, Setting.maxFetches, to: &configuration.maxFetches)
        try environment.assign(maxQueued, Setting.maxQueued, to: &configuration.maxQueued)
        try environment.assign(maxProbes, Setting.maxProbes, to: &configuration.maxProbes)
        try environment.assign(maxUpload, Setting.maxUpload, to: &configuration.maxUpload)
        try environment.assign(minFreeDisk, Setting.minFreeDisk, to: &configuration.minFreeDisk)
        try environment.assign(quota, Setting.quota, to: &configuration.quota)
        try isolationSettings(&configuration.isolation, environment)
        try environment.assign(retention, Setting.retention, to: &configuration.retention)
        try environment.assign(uploadExpiry, Setting.uploadExpiry, to: &configuration.uploadExpiry)
        try environment.assign(maxPendingUploads, Setting.maxPendingUploads, to: &configuration.maxPendingUploads)
        try environment.assign(headerTimeout, Setting.headerTimeout, to: &configuration.headerTimeout)
        try environment.assign(bodyTimeout, Setting.bodyTimeout, to: &configuration.bodyIdleTimeout)
        try environment.assign(minUploadRate, Setting.minUploadRate, to: &configuration.minUploadRate)
        try environment.assign(sendTimeout, Setting.sendTimeout, to: &configuration.sendTimeout)
        guard configuration.sendTimeout > 0 else { throw ValidationError("--send-timeout must be more than 0") }
        configuration.maxConnections = try environment.value(maxConnections, Setting.maxConnections)
        configuration.maxStreams = try environment.value(maxStreams, Setting.maxStreams)
        if let streams = configuration.maxStreams, let connections = configuration.maxConnections,
            streams >= connections
        {
            throw ValidationError("--max-streams must be less than --max-connections")
        }
        configuration.maxStreamsPerClient = try environment.value(maxStreamsPerClient, Setting.maxStreamsPerClient)
        try environment.assign(eventHeartbeat, Setting.eventHeartbeat, to: &configuration.eventHeartbeat)
        guard configuration.eventHeartbeat > 0 else { throw ValidationError("--event-heartbeat must be more than 0") }
        try environment.assign(shutdownGrace, Setting.shutdownGrace, to: &configuration.shutdownGrace)
        try environment.assign(corsOrigins, Setting.corsOrigins, to: &configuration.corsOrigins)
        configuration.openAPIPath = try environment.value(openapi, Setting.openapi)
        try environment.assign(logFormat, Setting.logFormat, to: &configuration.logFormat)
        try environment.assign(logLevel, Setting.logLevel, to: &configuration.logLevel)
        configuration.database = try environment.value(database, Setting.database) { try DatabaseSettings(url: $0) }
        configuration.replicas = try replicaSettings(environment, database: configuration.database != nil)
        try webhookSettings(&configuration.webhooks, environment)
        try egressPolicy(&configuration.egress, environment)
        configuration.objects = try objectSettings(environment)
        configuration.egress.tls = configuration.webhooks.tls
        if let path = try environment.value(authTokens, Setting.authTokens) {
            configuration.accessTokens = try Self.accessTokens(path)
        }
        return configuration
    }

    private func isolationSettings(_ settings: inout IsolationSettings, _ environment: ServeEnvironment) throws {
        try environment.assign(isolation, Setting.isolation, to: &settings.mode)
        try environment.assign(jobMemory, Setting.jobMemory, to: &settings.jobMemory)
        try environment.assign(maxOutput, Setting.maxOutput, to: &settings.maxOutput)
        try environment.assign(jobTimeoutFloor, Setting.jobTimeoutFloor, to: &settings.timeoutFloor)
        try environment.assign(jobTimeoutCeiling, Setting.jobTimeoutCeiling, to: &settings.timeoutCeiling)
        try environment.assign(workerJobs, Setting.workerJobs, to: &settings.jobsPerWorker)
        guard settings.timeoutFloor <= settings.timeoutCeiling else {
            throw ValidationError("--job-timeout-floor must not be longer than --job-timeout-ceiling")
        }
    }

    /// Replica settings, or nil unless --shared-store (or MEDIAD_SHARED_STORE=1) or a database asks for them.
    private func replicaSettings(_ environment: ServeEnvironment, database: Bool) throws -> ReplicaSettings? {
        guard try database || isSharedStore(environment) else {
            if replicaID != nil || leaseTTL != nil || heartbeat != nil {
                throw ValidationError("--replica-id, --lease-ttl and --heartbeat need --shared-store or --database")
            }
            return nil
        }
        var settings = ReplicaSettings()
        try environment.assign(replicaID, Setting.replicaID, to: &settings.replicaID)
        try environment.assign(leaseTTL, Setting.leaseTTL, to: &settings.leaseTTL)
        try environment.assign(heartbeat, Setting.heartbeat, to: &settings.heartbeat)
        guard settings.heartbeat > 0, settings.heartbeat * 2 <= settings.leaseTTL else {
            throw ValidationError("--heartbeat must be positive and at most half of --lease-ttl")
        }
        return settings
    }

    /// The flag, else `MEDIAD_SHARED_STORE`.
    private func isSharedStore(_ environment: ServeEnvironment) throws -> Bool {
        try Self.isOn(sharedStore, "MEDIAD_SHARED_STORE", environment)
    }

    /// A switch: on when its flag is given, else as its variable says (1, true or yes turn it on; 0, false,
    /// no or empty leave it off).
    private static func isOn(_ flag: Bool, _ variable: String, _ environment: ServeEnvironment) throws -> Bool {
        if flag { return true }
        let text = environment.variables[variable] ?? "0"
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no", "": return false
        default: throw ValidationError("\(variable) must be 1 or 0, not '\(text)'")
        }
    }

    /// The bucket of `--objects`, or nil without it; an `s3://` URL, endpoint, region or retry window that
    /// cannot be is a usage error, and so are the S3 settings without `--objects`.
    private func objectSettings(_ environment: ServeEnvironment) throws -> ObjectSettings? {
        let endpoint = try environment.value(s3Endpoint, Setting.s3Endpoint)
        let region = try environment.value(s3Region, Setting.s3Region)
        let pathStyle = try Self.isOn(s3PathStyle, "MEDIAD_S3_PATH_STYLE", environment)
        let proxy = try Self.isOn(objectsProxy, "MEDIAD_OBJECTS_PROXY", environment)
        let stageWhole = try Self.isOn(objectsStageWhole, "MEDIAD_OBJECTS_STAGE_WHOLE", environment)
        let window = try environment.value(s3RetryWindow, Setting.s3RetryWindow)
        guard let objects = try environment.value(objects, Setting.objects) else {
            if endpoint != nil || region != nil || pathStyle || proxy || stageWhole || window != nil {
                throw ValidationError(
                    "--s3-endpoint, --s3-region, --s3-path-style, --s3-retry-window, --objects-proxy and --objects-stage-whole need --objects"
                )
            }
            return nil
        }
        var settings: ObjectSettings
        do {
            settings = ObjectSettings(
                location: try S3Location(objects: objects, endpoint: endpoint, region: region, pathStyle: pathStyle))
        } catch {
            throw ValidationError("invalid_objects: \(error)")
        }
        settings.proxy = proxy
        settings.stageWhole = stageWhole
        if let window {
            // A day at most: a request held longer holds its upload's client, or its job, as long.
            guard window <= 86400 else { throw ValidationError("--s3-retry-window must be at most 1d") }
            settings.retryWindow = .milliseconds(Int64((window * 1000).rounded()))
        }
        return settings
    }

    private func webhookSettings(_ settings: inout WebhookSettings, _ environment: ServeEnvironment) throws {
        settings.secret = try environment.value(webhookSecret, Setting.webhookSecret).flatMap { $0.isEmpty ? nil : $0 }
        if let hosts = try environment.value(webhookAllow, Setting.webhookAllow, HostPattern.list) {
            settings.allowedHosts = hosts
        }
        try environment.assign(webhookRetryBase, Setting.webhookRetryBase, to: &settings.retryBase)
        guard settings.retryBase > 0 else { throw ValidationError("--webhook-retry-base must be more than 0") }
        if let tls = try environment.value(webhookCaFile, Setting.webhookCaFile, ClientTLS.init(extraAuthorities:)) {
            settings.tls = tls
        }
        if !settings.allowedHosts.isEmpty && settings.secret == nil {
            throw ValidationError("--webhook-allow needs --webhook-secret (or MEDIAD_WEBHOOK_SECRET) to sign callbacks")
        }
    }

    private func egressPolicy(_ policy: inout EgressPolicy, _ environment: ServeEnvironment) throws {
        if let rules = try environment.value(egressAllow, Setting.egressAllow, EgressRule.list) {
            policy.rules = rules
        }
        try environment.assign(egressConnectTimeout, Setting.egressConnectTimeout, to: &policy.connectTimeout)
        try environment.assign(egressIdleTimeout, Setting.egressIdleTimeout, to: &policy.idleTimeout)
        guard policy.connectTimeout > 0, policy.idleTimeout > 0 else {
            throw ValidationError("--egress-connect-timeout and --egress-idle-timeout must be more than 0")
        }
        try environment.assign(inputTimeout, Setting.inputTimeout, to: &policy.inputTimeout)
        guard policy.inputTimeout > 0 else { throw ValidationError("--input-timeout must be more than 0") }
    }

    /// The tokens of the file at `path`, or a usage error saying why there are none.
    private static func accessTokens(_ path: String) throws -> AccessTokens {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("cannot read the token file \(path)")
        }
        do {
            return try AccessTokens(fileContents: text)
        } catch {
            throw ValidationError("the token file \(path): \(error)")
        }
    }
}
