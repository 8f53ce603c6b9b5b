import Foundation
import JobStore
import MediaCore
import MediaJobs

/// Runs the engine for one job record, synchronously, on a worker thread.
struct JobExecutor {
    let store: JobStore

    /// What a successful run reports back.
    struct Outcome: Sendable {
        var warnings: [String]
        var result: JSONValue
    }

    func run(_ record: JobRecord, context: JobContext) throws -> Outcome {
        let id = record.id
        let input = { (name: String) in store.inputPath(id: id, name: name) }
        let output = try store.outputPath(
            id: id, name: JobSpec.primaryOutput(for: record.kind, options: record.options))
        let has = { (name: String) in record.inputs.contains { $0.name == name } }
        switch record.kind {
        case .remux:
            let options = try JobSpec.decode(RemuxJob.Options.self, from: record.options)
            return try outcome(RemuxJob(input: input("input"), output: output, options: options).run(context))
        case .mux:
            let options = try JobSpec.decode(MuxJob.Options.self, from: record.options)
            let job = MuxJob(
                audio: has("audio") ? input("audio") : nil, video: has("video") ? input("video") : nil, output: output,
                options: options)
            return try outcome(job.run(context))
        case .encode:
            let options = try JobSpec.decode(EncodeJob.Options.self, from: record.options)
            return try outcome(EncodeJob(input: input("input"), output: output, options: options).run(context))
        case .decode:
            let options = try JobSpec.decode(DecodeJob.Options.self, from: record.options)
            return try outcome(DecodeJob(input: input("input"), output: output, options: options).run(context))
        case .demux:
            let job = DemuxJob(input: input("input"), outputDirectory: store.outputDirectory(id: id))
            return try outcome(job.run(context))
        }
    }

    /// The engine's result as JSON, with output paths reduced to file names (no server paths leak).
    private func outcome<R: JobResult>(_ result: R) throws -> Outcome {
        var json = try JSONDecoder().decode(JSONValue.self, from: MediaJSON.encode(result))
        if case .object(var members) = json {
            members["outputs"] = .array(result.outputs.map { .string(URL(fileURLWithPath: $0).lastPathComponent) })
            json = .object(members)
        }
        return Outcome(warnings: result.warnings, result: json)
    }
}
