/// What a job does with an input that is cut short or partly malformed but still has readable media.
///
/// `salvage` (the default of the kinds that take the `damaged` option) reads what libav can read, as the
/// ffmpeg CLI does, and says in the job's `warnings` what was lost; `refuse` fails such an input with
/// `truncated_input` or `invalid_input` before any work, as every job did before salvage existed. An
/// input with nothing readable fails either way.
public enum DamagedInput: String, Sendable, Codable, CaseIterable {
    case salvage, refuse
}

/// What is wrong with an input that libav still reads: each finding is a sentence saying what is cut
/// or malformed and where, under the code a refusal would have given.
public struct InputDamage: Sendable, Equatable {
    public struct Finding: Sendable, Equatable {
        /// `truncated_input` for what the file lacks, `invalid_input` for what it holds malformed.
        public var code: MediaError.Code
        public var message: String

        public init(code: MediaError.Code, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The first `keptFindings` findings; a fuzzed file can have thousands.
    public private(set) var findings: [Finding] = []
    /// Findings past the first `keptFindings`, counted only.
    public private(set) var unlistedFindings = 0
    static let keptFindings = 16
    /// Samples the movie fragments (`trun` boxes) declare for each stream, by stream index: what libav's
    /// index of a fragmented file only learns as it reads, and so cannot say once the reading stopped.
    public var declaredFragmentSamples: [Int: Int] = [:]

    public init() {}

    public var isEmpty: Bool { findings.isEmpty }

    /// Whether part of the file is missing (rather than only malformed).
    public var isTruncated: Bool { findings.contains { $0.code == .truncatedInput } }

    /// Records `error`, once: a read error met again after a seek back (a trim's keyframe search) is the same.
    mutating func append(_ error: MediaError) {
        let finding = Finding(code: error.code, message: error.message)
        guard !findings.contains(finding) else { return }
        guard findings.count < Self.keptFindings else { return unlistedFindings += 1 }
        findings.append(finding)
    }
}

/// Collects what an inspection of an input finds wrong: under `refuse` the first finding is thrown,
/// under `salvage` it is kept for the job's warnings and the inspection goes on as libav's reader would.
///
/// A class so that the box walkers, which visit boxes through closures, can share one.
final class DamageRecorder {
    let policy: DamagedInput
    private(set) var damage = InputDamage()

    init(policy: DamagedInput) { self.policy = policy }

    /// Throws `error` when refusing; records it when salvaging.
    func found(_ error: MediaError) throws {
        guard policy == .salvage else { throw error }
        damage.append(error)
    }

    func declare(samples: Int, ofStream index: Int) {
        damage.declaredFragmentSamples[index, default: 0] += samples
    }
}
