import Foundation
import JobStore
import PostgresNIO

/// The delivery lease: an ended job that still owes output deliveries or its webhook is delivered by one
/// replica at a time (`deliverer`), which renews the lease with its heartbeat; once it lapses (by the
/// database's clock) another replica takes the deliveries over and goes on from the attempts the record
/// holds. The deliverer's writes of the record are fenced by the lease: a replica that lost it writes
/// nothing.
///
/// The end of a run (`release`), a takeback that fails a job (`reclaimExpired`) and the cancel of a queued
/// job (`saveUnheld`) set the lease in the statement that ends the job, when the record `owesDeliveries`.
extension JobDatabase {
    /// Takes over, for `replica` until `now()` + `ttl` seconds, the delivery leases that expired: their
    /// deliverer died or stalled. Rows are locked with `SKIP LOCKED`, so replicas doing this at once each
    /// take different jobs, and a deliverer renewing at that moment either renews first or finds its lease
    /// gone.
    public func takeOverExpiredDeliveries(replica: String, ttl: Double, limit: Int = 100) async throws
        -> [DeliveryTakeover]
    {
        try await rows(
            """
            WITH expired AS (
                SELECT id, deliverer FROM jobs
                WHERE deliverer IS NOT NULL AND delivery_expires <= now() AND holder IS NULL
                ORDER BY delivery_expires
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            UPDATE jobs SET deliverer = \(replica), delivery_expires = now() + make_interval(secs => \(ttl))
            FROM expired WHERE jobs.id = expired.id
            RETURNING jobs.record::text, expired.deliverer
            """, "taking over expired deliveries", as: (String, String).self
        ).map { DeliveryTakeover(record: try Self.record($0.0), from: $0.1) }
    }

    /// Takes back, for `replica` until `now()` + `ttl` seconds, the delivery leases it holds already,
    /// whatever their expiry: those of an earlier process of the same replica, which a restart cut off.
    public func resumeDeliveries(replica: String, ttl: Double) async throws -> [JobRecord] {
        try await rows(
            """
            UPDATE jobs SET delivery_expires = now() + make_interval(secs => \(ttl))
            WHERE deliverer = \(replica) AND holder IS NULL
            RETURNING record::text
            """, "resuming deliveries", as: String.self
        ).map(Self.record)
    }

    /// Takes the deliveries of the ended job `id` for `replica` until `now()` + `ttl` seconds (a webhook
    /// delivered again on request): unless another replica's lease on them is live. False when it is, or
    /// the job is gone or held.
    public func takeDeliveries(_ id: String, replica: String, ttl: Double) async throws -> Bool {
        try await !rows(
            """
            UPDATE jobs SET deliverer = \(replica), delivery_expires = now() + make_interval(secs => \(ttl))
            WHERE id = \(id) AND holder IS NULL
                AND (deliverer IS NULL OR deliverer = \(replica) OR delivery_expires <= now())
            RETURNING id
            """, "taking the deliveries of job \(id)", as: String.self
        ).isEmpty
    }

    /// Extends to `now()` + `ttl` seconds the delivery leases of `ids` that `replica` still holds; the ids
    /// renewed (the others were taken over, or ended).
    public func renewDeliveries(_ ids: [String], replica: String, ttl: Double) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try await rows(
                """
                UPDATE jobs SET delivery_expires = now() + make_interval(secs => \(ttl))
                WHERE id = ANY(\(ids)::text[]) AND deliverer = \(replica) AND holder IS NULL
                RETURNING id
                """, "renewing delivery leases", as: String.self))
    }

    /// Writes `record`, whose deliveries `deliverer` makes, and ends the delivery lease with it when `ends`
    /// (every delivery final, the webhook delivered or its window closed). False (nothing written) when
    /// the lease is no longer `deliverer`'s — another replica took the deliveries over — or the job is gone.
    public func saveDelivery(_ record: JobRecord, deliverer: String, ends: Bool) async throws -> Bool {
        let json = try Self.json(record)
        return try await !rows(
            """
            UPDATE jobs SET record = \(json)::jsonb, updated_at = now(),
                deliverer = CASE WHEN \(ends) THEN NULL ELSE deliverer END,
                delivery_expires = CASE WHEN \(ends) THEN NULL ELSE delivery_expires END
            WHERE id = \(record.id) AND holder IS NULL AND deliverer = \(deliverer)
            RETURNING id
            """, "saving the deliveries of job \(record.id)", as: String.self
        ).isEmpty
    }

    /// Ends `deliverer`'s delivery lease on the job `id` without writing its record: it found nothing (left)
    /// to deliver. False when the lease was not `deliverer`'s.
    @discardableResult
    public func endDeliveries(_ id: String, deliverer: String) async throws -> Bool {
        try await !rows(
            """
            UPDATE jobs SET deliverer = NULL, delivery_expires = NULL
            WHERE id = \(id) AND deliverer = \(deliverer)
            RETURNING id
            """, "ending the deliveries of job \(id)", as: String.self
        ).isEmpty
    }
}

extension JobRecord {
    /// Whether the job ended owing deliveries: an output delivery not final, or a `callback_url` not
    /// delivered yet. Whether the webhook's retry window is still open is the deliverer's to decide, which
    /// ends the lease when it finds nothing left to do.
    public var owesDeliveries: Bool {
        guard state.isTerminal else { return false }
        if deliveries?.contains(where: { !$0.state.isFinal }) == true { return true }
        return callbackURL != nil && !(notifications ?? []).contains(where: \.delivered)
    }
}
