import ArgumentParser
import MediadRuntime

/// The resource limits `mediad serve` passes to each `mediad worker` and `mediad probe-worker` it starts.
struct WorkerLimitOptions: ParsableArguments {
    @Option(help: "Address space the process may map, in bytes.")
    var jobMemory: Int64

    @Option(help: "Largest file the process may write, in bytes.")
    var maxOutput: Int64

    @Option(help: "CPU time the process may use, in seconds.")
    var cpuTime: Int

    var limits: WorkerLimits { WorkerLimits(memory: jobMemory, maxOutput: maxOutput, cpuSeconds: cpuTime) }
}
