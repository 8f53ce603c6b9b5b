import Foundation
import JobStore
import MediaCore
import MediaJobs

/// The bottom of the run chain: runs the job's kind (`MediaJob.run` in `MediaJobs`) for one record,
/// synchronously, and hashes its outputs. Called by `JobWorker` in a `mediad worker` process, or with
/// `--isolation none` by the `RunDispatcher` on a thread of the server; it calls nothing of the server.
package struct JobExecutor {
    package let store: JobStore

    /// What a successful run reports back: the typed result and each output's size and SHA-256, hashed
    /// here, right after the job wrote it, so the server never reads an output again.
    package struct Outcome: Sendable, Equatable, Encodable {
        var result: JobResultValue
        /// Primary output first, the others by name: the order a record lists them in.
        var outputs: [FileDigest]

        var warnings: [String] { result.warnings }

        enum CodingKeys: String, CodingKey {
            case kind, result, outputs
        }

        init(result: JobResultValue, outputs: [FileDigest]) {
            self.result = result
            self.outputs = outputs
        }

        package func encode(to encoder: Swift.Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(result.kind, forKey: .kind)
            try container.encode(result, forKey: .result)
            try container.encode(outputs, forKey: .outputs)
        }
    }

    /// Runs the job and digests its outputs (its inputs still arriving, and those still `staging` from the
    /// bucket, read as they arrive); outputs that passed `context`'s allowance, which the run itself may not
    /// have caught, fail it (`output_too_large`, `quota_exceeded`) and are removed.
    package func run(_ record: JobRecord, staging: Set<String> = [], context: JobContext) throws -> Outcome {
        let id = record.id
        // An input still arriving is read as it grows, as the whole file it will be.
        let growing =
            (record.arrivingInputs ?? []).map { ($0.name, $0.size) }
            + record.inputs.filter { staging.contains($0.name) }.map { ($0.name, $0.size) }
        let arriving = growing.map { (store.inputPath(id: id, name: $0.0), $0.1) }
        for (path, size) in arriving { ArrivingFiles.register(path, size: size) }
        defer { for (path, _) in arriving { ArrivingFiles.unregister(path) } }
        let given = Set(record.inputs.map(\.name) + (record.arrivingInputs ?? []).map(\.name))
        let inputs = JobInputFiles(
            Dictionary(
                uniqueKeysWithValues: record.kind.inputs.filter { given.contains($0.storedName) }.map {
                    ($0.name, store.inputPath(id: id, name: $0.storedName))
                }))
        let directory = store.outputDirectory(id: id)
        let result = try record.kind.run(record.options, inputs: inputs, outputDirectory: directory, context: context)
        let primary = try record.kind.primaryOutput(for: record.options)
        let names = result.outputs.sorted()
        for name in names where !JobStore.isValidOutputName(name) {
            throw MediaError(.internalError, "the job named an output '\(name)' that would leave its directory")
        }
        let outputs = try (names.filter { $0 == primary } + names.filter { $0 != primary }).map {
            try FileDigest(hashing: $0, in: directory)
        }
        do {
            // The exact sum, for a run that ended before the `OutputMeter` looked again.
            try context.outputAllowance.checkWritten(outputs.reduce(0) { $0 + $1.size })
        } catch {
            try? store.removeOutputs(id: id)
            throw error
        }
        return Outcome(result: result, outputs: outputs)
    }
}

extension JobExecutor.Outcome {
    /// The outputs as job `id`'s record lists them, with the download urls `link` gives.
    package func listedOutputs(ofJob id: String, link: OutputLink) -> [JobOutput] {
        outputs.map { JobOutput($0, contentType: OutputContentType.of($0.name), url: link(id, $0.name)) }
    }
}

extension JobExecutor.Outcome: Decodable {
    /// Reads `kind` first: it says which type `result` decodes as.
    package init(from decoder: Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(JobKind.self, forKey: .kind)
        result = try kind.decodeResult(from: container.superDecoder(forKey: .result))
        outputs = try container.decode([FileDigest].self, forKey: .outputs)
    }
}
