import JobStore

/// The places the runs of this server take: `workers` runs doing a job's media work at once, and beside
/// them `fetchers` runs fetching their URL inputs (`--max-fetches`), so that an upstream trickling an
/// input holds a fetch slot and never a worker that a job with its input at hand could use.
///
/// A run whose job has inputs to fetch takes a fetch slot when it starts and keeps it until it has a
/// worker, so that at most `fetchers` runs fetch or wait with fetched inputs. A fetched run gets a worker
/// that frees before any queued job does, and in the order the fetches ended. Belongs to a `RunTracker`,
/// on its job service's actor.
struct RunSlots {
    let workers: Int
    let fetchers: Int
    /// Runs holding a worker.
    private var working: Set<String> = []
    /// Runs holding a fetch slot: fetching, or fetched and waiting for a worker.
    private var fetching: Set<String> = []
    /// Fetched runs waiting for a worker, first come first served.
    private var waiting: [String] = []
    /// What a waiting run suspends on, resumed when it has a worker or stops waiting.
    private var wakers: [String: CheckedContinuation<Void, Never>] = [:]

    init(workers: Int, fetchers: Int) {
        self.workers = max(1, workers)
        self.fetchers = max(1, fetchers)
    }

    /// Every place a run may hold, for bounding how many jobs one scheduling pass tries.
    var capacity: Int { workers + fetchers }

    /// Whether a run of `record` could start now: a fetch slot for a job with inputs to fetch, else a worker
    /// that no fetched run is waiting for.
    func hasRoom(for record: JobRecord) -> Bool {
        record.hasInputsToFetch ? fetching.count < fetchers : working.count < workers && waiting.isEmpty
    }

    /// Whether a run of any job could start now: a fetch slot and a worker both free.
    var hasRoomForAnyJob: Bool { fetching.count < fetchers && working.count < workers && waiting.isEmpty }

    /// Whether no run of any job could start now.
    var isFull: Bool { fetching.count >= fetchers && (working.count >= workers || !waiting.isEmpty) }

    /// A run of `record` starts: it takes the place `hasRoom(for:)` found.
    mutating func take(for record: JobRecord) {
        if record.hasInputsToFetch { fetching.insert(record.id) } else { working.insert(record.id) }
    }

    /// The run `id` has fetched its inputs: it takes a worker now if one is free and no other fetched run
    /// waits for one (true), else it waits, in line (false).
    mutating func fetched(_ id: String) -> Bool {
        waiting.append(id)
        handOutWorkers()
        return working.contains(id)
    }

    /// Resumes `waker` once the run `id` has a worker, or at once if it has one or no longer waits.
    mutating func wake(_ id: String, with waker: CheckedContinuation<Void, Never>) {
        guard waiting.contains(id) else { return waker.resume() }
        wakers[id] = waker
    }

    /// The run `id` stops waiting for a worker (it was asked to stop): what it waits on is resumed.
    mutating func stopWaiting(_ id: String) {
        wakers.removeValue(forKey: id)?.resume()
    }

    /// The run `id` ended: its places are free, and a freed worker goes to the fetched run first in line.
    mutating func release(_ id: String) {
        working.remove(id)
        fetching.remove(id)
        waiting.removeAll { $0 == id }
        stopWaiting(id)
        handOutWorkers()
    }

    /// Gives free workers to the fetched runs waiting, in their order; each frees its fetch slot.
    private mutating func handOutWorkers() {
        while working.count < workers, !waiting.isEmpty {
            let id = waiting.removeFirst()
            fetching.remove(id)
            working.insert(id)
            wakers.removeValue(forKey: id)?.resume()
        }
    }
}

extension JobRecord {
    /// Whether a run of the job starts by fetching inputs from URLs: some source is not fetched yet.
    var hasInputsToFetch: Bool {
        inputSources?.contains { $0.state != .fetched } ?? false
    }
}
