import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// An MP4 whose edit list hides a second of AAC (the ffmpeg CLI's `-itsoffset -1`, as a cut made by
/// editing the list): targets that cannot hide it leave out all but the last hidden packet where decoding
/// shows that changes no shown sample, and keep them all where it would.
@Suite struct RemuxHiddenLeadInTests {
    /// 3 s of AAC from `source` (a lavfi audio graph), of which the edit list hides the first second;
    /// `noiseSubstitution` switches the encoder's PNS (`-aac_pns`), which it uses even on a tone.
    static func hiddenSecond(_ name: String, _ source: String, noiseSubstitution: Bool) throws -> String {
        let plain = try Fixtures.make(
            "\(name).m4a",
            [
                "-f", "lavfi", "-i", source, "-c:a", "aac", "-b:a", "64k", "-aac_pns", noiseSubstitution ? "1" : "0",
                "-f", "mp4",
            ])
        return try Fixtures.make("\(name)-hidden-second.mp4", ["-itsoffset", "-1", "-i", plain, "-c", "copy"])
    }

    static func hiddenPackets(_ path: String) throws -> Int {
        try Oracle.packets(path, stream: "a:0").filter { ($0["flags"] as? String)?.contains("D") == true }.count
    }

    /// A tone coded without noise substitution: every packet after the last hidden one decodes the same
    /// without the others (an AAC frame depends on the one before it only), so Matroska and
    /// MPEG-TS show one hidden packet (and the part of the first shown one the edit cuts), which the strict
    /// oracle takes as priming; mp4 hides them all as before.
    @Test func aToneLeavesOutAllButOneHiddenPacket() throws {
        let input = try Self.hiddenSecond(
            "tone", "sine=frequency=330:sample_rate=48000:duration=3", noiseSubstitution: false)
        let hidden = try Self.hiddenPackets(input)
        #expect(hidden > 40)
        let scratch = try Scratch("lead-in")
        for format in [ContainerFormat.mkv, .ts, .mp4] {
            let (output, result) = try remux(input, to: format, in: scratch)
            let leftOut = format.signalsPriming ? 0 : hidden - 1
            #expect(result.tracks.first?.packets == (try Oracle.packetCount(input, stream: "a:0")) - leftOut)
            #expect(
                result.warnings.contains {
                    $0.contains("the first \(leftOut) packets that the input's edit list hides")
                }
                    == !format.signalsPriming, "\(format): \(result.warnings)")
            let problems = try Lossless.problems(
                input: input, output: output, primingMayShow: !format.signalsPriming)
            #expect(problems.isEmpty, "\(format): \(problems)")
        }
    }

    /// Pink noise coded with noise substitution (PNS): the AAC decoder draws each noisy
    /// band from a generator that every earlier packet advanced, so without the hidden packets the shown
    /// samples would differ. The check finds that out and every packet is kept, shown and named.
    @Test func noiseSubstitutionKeepsEveryHiddenPacket() throws {
        let input = try Self.hiddenSecond(
            "noise", "anoisesrc=duration=3:color=pink:sample_rate=48000", noiseSubstitution: true)
        let scratch = try Scratch("lead-in-noise")
        let (output, result) = try remux(input, to: .mkv, in: scratch)
        #expect(result.tracks.first?.packets == (try Oracle.packetCount(input, stream: "a:0")))
        #expect(!result.warnings.contains { $0.contains("left out") }, "\(result.warnings)")
        #expect(result.warnings.contains { $0.contains("the input's edit list hides (decoded, not shown)") })
        let problems = try Lossless.problems(input: input, output: output, primingMayShow: true, hiddenMayShow: true)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// DTS, whose decoder remux does not run (its input policy), under the same edit list: the check
    /// cannot decode it, so the track is copied whole and every hidden packet named, not refused (as it was
    /// when the check opened a decoder for every audio track).
    @Test func aTrackRemuxDoesNotDecodeIsCopiedWhole() throws {
        let plain = try Fixtures.make(
            "tone-dts.mp4",
            [
                "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000:duration=3", "-ac", "2", "-c:a", "dca",
                "-strict", "experimental", "-f", "mp4",
            ])
        let input = try Fixtures.make("tone-dts-hidden-second.mp4", ["-itsoffset", "-1", "-i", plain, "-c", "copy"])
        let hidden = try Self.hiddenPackets(input)
        #expect(hidden > 40)
        let scratch = try Scratch("lead-in-dts")
        let (output, result) = try remux(input, to: .mkv, in: scratch)
        #expect(result.tracks.first?.packets == (try Oracle.packetCount(input, stream: "a:0")))
        #expect(result.warnings.contains { $0.contains("\(hidden) packets that the input's edit list hides") })
        let problems = try Lossless.problems(input: input, output: output, primingMayShow: true, hiddenMayShow: true)
        #expect(problems.isEmpty, "\(problems)")
    }
}
