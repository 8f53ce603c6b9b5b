/// The tables mediad keeps in PostgreSQL, as an ordered list of migrations: migration `n` (1-based) brings
/// the schema from version `n - 1` to `n`, and `mediad_schema` holds one row per version applied.
///
/// A migration is only ever appended, never edited once released: a database is at the version of the
/// newest mediad that started on it, and an older mediad refuses it (`database_schema_too_new`) rather
/// than read tables it does not know.
public enum DatabaseSchema {
    /// The newest version this build knows.
    public static var version: Int { migrations.count }

    /// The table of applied versions; created before any migration, under the same lock.
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS mediad_schema (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    /// The key of the advisory lock migrations are applied under ("mediad" and 1), so that replicas starting
    /// together apply each migration once, one after the other.
    static let lockKey: Int64 = 0x6D65_6469_6164_0001

    /// Each migration's statements, run in one transaction.
    static let migrations: [[String]] = [
        // 1: jobs with their queue and leases, and the runs of each job.
        [
            // The record is the `JobRecord` JSON; the columns beside it are what queries select and order on,
            // and the lease (holder, lease_expires, attempts: the attempt being the fencing token).
            """
            CREATE TABLE jobs (
                id text PRIMARY KEY,
                record jsonb NOT NULL,
                state text NOT NULL,
                kind text NOT NULL,
                owner text,
                created_at timestamptz NOT NULL,
                queued_at timestamptz,
                holder text,
                lease_expires timestamptz,
                attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                cancel_requested boolean NOT NULL DEFAULT false,
                progress double precision NOT NULL DEFAULT 0,
                progress_notified_at timestamptz,
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            // The queue: the oldest queued job first, as the file system's scheduler takes them.
            "CREATE INDEX jobs_queue ON jobs (created_at, id) WHERE state = 'queued'",
            // Leases that may have expired.
            "CREATE INDEX jobs_leases ON jobs (lease_expires) WHERE state = 'running'",
            // The job list, newest first, by keyset on (created_at, id), whole or by state or owner.
            "CREATE INDEX jobs_listing ON jobs (created_at DESC, id DESC)",
            "CREATE INDEX jobs_listing_by_state ON jobs (state, created_at DESC, id DESC)",
            "CREATE INDEX jobs_listing_by_owner ON jobs (owner, created_at DESC, id DESC)",
            // One row per attempt: who ran it, when, and how it ended (null while under way, or when its
            // replica died and the job was taken over).
            """
            CREATE TABLE runs (
                job_id text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
                attempt integer NOT NULL,
                replica text NOT NULL,
                started_at timestamptz NOT NULL,
                ended_at timestamptz,
                outcome text,
                PRIMARY KEY (job_id, attempt)
            )
            """,
            // Every write notifies, whoever makes it: `queuedChannel` when a job enters the queue,
            // `changedChannel` when its record, holder, attempt or cancel request changes, or it is deleted,
            // and when a renewal reports progress (which the renewal stamps at most once a second).
            """
            CREATE FUNCTION mediad_jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('\(JobDatabase.changedChannel)', OLD.id);
                    RETURN NULL;
                END IF;
                IF NEW.state = 'queued' AND (TG_OP = 'INSERT' OR OLD.state <> 'queued') THEN
                    PERFORM pg_notify('\(JobDatabase.queuedChannel)', NEW.id);
                END IF;
                IF TG_OP = 'UPDATE' AND (NEW.record IS DISTINCT FROM OLD.record
                    OR NEW.holder IS DISTINCT FROM OLD.holder OR NEW.attempts <> OLD.attempts
                    OR NEW.cancel_requested <> OLD.cancel_requested
                    OR NEW.progress_notified_at IS DISTINCT FROM OLD.progress_notified_at) THEN
                    PERFORM pg_notify('\(JobDatabase.changedChannel)', NEW.id);
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OR DELETE ON jobs
            FOR EACH ROW EXECUTE FUNCTION mediad_jobs_notify()
            """,
        ],
        // 2: idempotency keys: each maps an owner's `Idempotency-Key` (its digest) to the job it created, and
        // frees it when that job is deleted; a key older than its lifetime (by `created_at`, the database's
        // clock) is dead and is replaced by the next claim or deleted by the sweep.
        [
            // `entry` is the `IdempotencyEntry` JSON: what the first request asked for, which a repeat must match.
            """
            CREATE TABLE idempotency_keys (
                digest text PRIMARY KEY,
                job_id text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
                created_at timestamptz NOT NULL DEFAULT now(),
                entry jsonb NOT NULL
            )
            """,
            // The cascade from a deleted job, and the sweep by age.
            "CREATE INDEX idempotency_keys_job ON idempotency_keys (job_id)",
            "CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at)",
        ],
        // 3: the delivery lease of an ended job that still owes output deliveries or its webhook:
        // the replica delivering them (`deliverer`) and until when it holds them unless it renews
        // (`delivery_expires`, by the database's clock); another replica takes them over once it expires.
        [
            "ALTER TABLE jobs ADD COLUMN deliverer text, ADD COLUMN delivery_expires timestamptz",
            // Delivery leases that may have expired.
            "CREATE INDEX jobs_delivery_leases ON jobs (delivery_expires) WHERE deliverer IS NOT NULL",
            // Jobs that ended before this migration and may still owe deliveries go to the replica that ran
            // them, their lease expired at once: any replica takes them over unless that one resumes them
            // first, and one that finds nothing (left) to deliver clears the lease.
            """
            UPDATE jobs SET deliverer = record->>'replica', delivery_expires = now()
            WHERE state IN ('succeeded', 'failed', 'cancelled') AND record->>'replica' IS NOT NULL
                AND ((record->>'callback_url' IS NOT NULL AND NOT EXISTS (
                        SELECT FROM jsonb_array_elements(coalesce(record->'notifications', '[]')) AS n
                        WHERE (n->>'status')::int BETWEEN 200 AND 299))
                    OR EXISTS (
                        SELECT FROM jsonb_array_elements(coalesce(record->'deliveries', '[]')) AS d
                        WHERE d->>'state' IN ('pending', 'delivering')))
            """,
        ],
        // 4: tus uploads: each upload's record, its committed offset and its writer's lease (the bytes stay in
        // the data directory). A later list of stored parts belongs beside it, keyed by the upload's id.
        [
            // `record` is the `ResumableUpload` JSON; `committed_offset` the bytes synced and acknowledged;
            // `writer` the one request (`<replica>/<token>`) that may append until `writer_expires`.
            """
            CREATE TABLE uploads (
                id text PRIMARY KEY,
                owner text,
                record jsonb NOT NULL,
                committed_offset bigint NOT NULL DEFAULT 0 CHECK (committed_offset >= 0),
                length bigint,
                job_id text,
                writer text,
                writer_expires timestamptz,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            // The expiry sweep, oldest activity first.
            "CREATE INDEX uploads_activity ON uploads (updated_at)",
        ],
        // 5: a change notification carries the row as the write left it and the writer's
        // `application_name`, so that replicas take it into their index without reading the job again
        // (`JobChange`); a row too long for a notification (PostgreSQL refuses 8000 bytes or more), and a
        // deletion, still send the id alone. Which writes notify is unchanged.
        [
            """
            CREATE OR REPLACE FUNCTION mediad_jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                payload text;
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('\(JobDatabase.changedChannel)', OLD.id);
                    RETURN NULL;
                END IF;
                IF NEW.state = 'queued' AND (TG_OP = 'INSERT' OR OLD.state <> 'queued') THEN
                    PERFORM pg_notify('\(JobDatabase.queuedChannel)', NEW.id);
                END IF;
                IF TG_OP = 'UPDATE' AND (NEW.record IS DISTINCT FROM OLD.record
                    OR NEW.holder IS DISTINCT FROM OLD.holder OR NEW.attempts <> OLD.attempts
                    OR NEW.cancel_requested <> OLD.cancel_requested
                    OR NEW.progress_notified_at IS DISTINCT FROM OLD.progress_notified_at) THEN
                    payload := json_build_object(
                        'id', NEW.id, 'by', current_setting('application_name'), 'record', NEW.record,
                        'holder', NEW.holder, 'lease_expires', extract(epoch FROM NEW.lease_expires),
                        'attempts', NEW.attempts, 'cancel_requested', NEW.cancel_requested,
                        'progress', NEW.progress, 'deliverer', NEW.deliverer,
                        'delivery_expires', extract(epoch FROM NEW.delivery_expires))::text;
                    PERFORM pg_notify('\(JobDatabase.changedChannel)',
                        CASE WHEN octet_length(payload) < \(JobDatabase.largestNotification) THEN payload ELSE NEW.id END);
                END IF;
                RETURN NULL;
            END
            $$
            """
        ],
        // 6: tus uploads into the bucket of `--objects`: the object they become (`object_key`, and the job it is
        // the input of when the metadata names one), the multipart upload under way (`object_upload`, null once
        // completed), the bytes that do not yet fill a part (`tail`, under the 8 MiB part size), the SHA-256
        // midstate after the stored parts (`hash_state`), and the stored parts themselves.
        [
            """
            ALTER TABLE uploads ADD COLUMN object_key text, ADD COLUMN object_upload text, ADD COLUMN object_job text,
                ADD COLUMN tail bytea NOT NULL DEFAULT ''::bytea, ADD COLUMN hash_state text
            """,
            """
            CREATE TABLE upload_parts (
                upload_id text NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
                number integer NOT NULL CHECK (number BETWEEN 1 AND 10000),
                etag text NOT NULL,
                size bigint NOT NULL CHECK (size > 0),
                PRIMARY KEY (upload_id, number)
            )
            """,
        ],
    ]
}
