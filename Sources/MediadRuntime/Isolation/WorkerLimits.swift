import Foundation
import MediaCore

/// The resource limits a worker process puts on itself before it opens any input.
public struct WorkerLimits: Sendable, Equatable {
    /// Address space (RLIMIT_AS), bytes.
    public var memory: Int64
    /// Largest file written (RLIMIT_FSIZE), bytes.
    public var maxOutput: Int64
    /// CPU time (RLIMIT_CPU), seconds; past it the kernel sends SIGXCPU.
    public var cpuSeconds: Int
    /// Open file descriptors (RLIMIT_NOFILE).
    public var openFiles: Int

    /// Enough descriptors for a job's inputs, outputs, log and libav's own, and no more.
    public static let defaultOpenFiles = 256

    public init(memory: Int64, maxOutput: Int64, cpuSeconds: Int, openFiles: Int = WorkerLimits.defaultOpenFiles) {
        self.memory = memory
        self.maxOutput = maxOutput
        self.cpuSeconds = cpuSeconds
        self.openFiles = openFiles
    }

    /// The limits as the flags of `mediad worker` and `mediad probe-worker` (open files is their default).
    package var arguments: [String] {
        ["--job-memory", String(memory), "--max-output", String(maxOutput), "--cpu-time", String(cpuSeconds)]
    }

    /// Sets the limits on this process (soft and hard, so the job cannot raise them again). A write past
    /// `maxOutput` then fails with EFBIG (`output_too_large`) instead of killing the process with SIGXFSZ.
    package func apply() throws {
        signal(SIGXFSZ, SIG_IGN)
        try Self.set(Int32(RLIMIT_AS.rawValue), memory, "memory")
        try Self.set(Int32(RLIMIT_FSIZE.rawValue), maxOutput, "output size")
        // The hard CPU limit one second later: the soft one sends SIGXCPU, the hard one SIGKILL.
        try Self.set(Int32(RLIMIT_CPU.rawValue), Int64(cpuSeconds), "CPU time", hard: Int64(cpuSeconds) + 1)
        try Self.set(Int32(RLIMIT_NOFILE.rawValue), Int64(openFiles), "open files")
    }

    /// Sets the limits of a job worker, which runs one job after another: memory, output size and open
    /// files as `apply()` sets them, and `cpuSeconds` as the hard CPU limit of the process's whole life.
    /// Each job's own budget is a soft limit set by `allowCPU(seconds:)` when it starts.
    package func applyForJobs() throws {
        signal(SIGXFSZ, SIG_IGN)
        try Self.set(Int32(RLIMIT_AS.rawValue), memory, "memory")
        try Self.set(Int32(RLIMIT_FSIZE.rawValue), maxOutput, "output size")
        try Self.set(Int32(RLIMIT_CPU.rawValue), Int64(cpuSeconds), "CPU time")
        try Self.set(Int32(RLIMIT_NOFILE.rawValue), Int64(openFiles), "open files")
    }

    /// Lets this process use `seconds` more CPU time from now (the soft RLIMIT_CPU: past it the kernel
    /// sends SIGXCPU, which ends the process), within the hard limit `applyForJobs()` set.
    package static func allowCPU(seconds: Int) throws {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let used = Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec) + 1
        let resource = __rlimit_resource_t(UInt32(RLIMIT_CPU.rawValue))
        var limit = rlimit()
        getrlimit(resource, &limit)
        limit.rlim_cur = min(rlim_t(used + Int64(max(1, seconds))), limit.rlim_max)
        guard setrlimit(resource, &limit) == 0 else {
            throw MediaError(.internalError, "cannot limit the job's CPU time: \(String(cString: strerror(errno)))")
        }
    }

    private static func set(_ resource: Int32, _ soft: Int64, _ what: String, hard: Int64? = nil) throws {
        var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard ?? soft))
        guard setrlimit(__rlimit_resource_t(UInt32(resource)), &limit) == 0 else {
            throw MediaError(.internalError, "cannot limit the worker's \(what): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether the address space still has room for `bytes` more: a failure without room is a failure for
    /// want of memory, whatever error the allocation that failed turned into on its way up.
    package static func hasAddressSpace(_ bytes: Int = 16 << 20) -> Bool {
        let mapping = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapping, mapping != MAP_FAILED else { return false }
        munmap(mapping, bytes)
        return true
    }
}
