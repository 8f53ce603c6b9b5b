import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// WAV format chunks with channel counts and sample rates no recorder writes: every kind that reads WAV
/// refuses them as `invalid_input` instead of failing later with another code or copying them.
@Suite struct WAVHeaderFieldTests {
    /// `Fixtures.wav()` with the little-endian `value` (`width` bytes) written at `field` of its 'fmt ' chunk.
    static func patchedFormat(field: Int, width: Int, _ value: UInt32) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.wav())))
        let format = try #require(
            (12..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == Array("fmt ".utf8) })
        for index in 0..<width {
            bytes[format + 8 + field + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index)))
        }
        return bytes
    }

    static let cases: [(name: String, field: Int, width: Int, value: UInt32, message: String)] = [
        ("no channels", 2, 2, 0, "states 0 channels"),
        ("65535 channels", 2, 2, 65535, "states 65535 channels"),
        ("2^31 Hz", 4, 4, 0x7FFF_FFFF, "sample rate of 2147483647 Hz"),
    ]

    @Test(arguments: cases.map(\.name))
    func everyKindRefusesTheHeader(_ name: String) throws {
        let field = Self.cases.first { $0.name == name }!
        let scratch = try Scratch("wavfields")
        let input = try scratch.write(
            "input.wav", try Self.patchedFormat(field: field.field, width: field.width, field.value))
        var errors: [(String, MediaError?)] = []
        for format in ["m4a", "wav"] {
            errors.append(
                (
                    "encode \(format)",
                    #expect(throws: MediaError.self) {
                        try EncodeJob(
                            input: input, output: scratch.file("output.\(format)"),
                            options: try .init(parsing: ["format": format])
                        ).run(JobContext())
                    }
                ))
        }
        errors.append(
            (
                "remux",
                #expect(throws: MediaError.self) {
                    try RemuxJob(
                        input: input, output: scratch.file("output.mkv"), options: try .init(parsing: ["format": "mkv"])
                    ).run(JobContext())
                }
            ))
        errors.append(("probe", #expect(throws: MediaError.self) { try ProbeJob(input: input).run() }))
        for (kind, error) in errors {
            #expect(error?.code == .invalidInput, "\(kind): \(String(describing: error))")
            #expect(error?.message.contains(field.message) == true, "\(kind): \(String(describing: error))")
        }
        #expect(try scratch.listing() == ["input.wav"])
    }
}
