import Foundation
import TestSupport
import Testing

/// A few hundred mutations of valid MP4, ADTS and WAV files — bit flips, truncations, box-size changes —
/// sent through `POST /probe` and `POST /jobs/remux`: the server stays up, every job ends, no answer is
/// a 5xx other than the documented ones, and no probe or job fails because its process crashed.
@Suite(.serialized) struct FuzzSmokeTests {
    /// One reproducible mutation of `bytes`.
    static func mutate(_ bytes: [UInt8], _ random: inout SeededBytes) -> [UInt8] {
        var copy = bytes
        switch random.nextWord() % 4 {
        case 0:
            for _ in 0..<(1 + Int(random.nextWord() % 16)) {
                let index = Int(random.nextWord() % UInt64(copy.count))
                copy[index] ^= UInt8(1 << (random.nextWord() % 8))
            }
        case 1:
            copy = Array(copy.prefix(Int(random.nextWord() % UInt64(copy.count))))
        case 2:
            // An ISO box size (or any 32-bit field) set to something wild.
            let index = Int(random.nextWord() % UInt64(max(1, copy.count - 4)))
            let value = [UInt32(0), 1, 7, 8, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(truncatingIfNeeded: random.nextWord())][
                Int(random.nextWord() % 7)]
            copy.replaceSubrange(index..<index + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init))
        default:
            let start = Int(random.nextWord() % UInt64(copy.count))
            let length = min(copy.count - start, 1 + Int(random.nextWord() % 512))
            copy.replaceSubrange(start..<start + length, with: random.next(count: length))
        }
        return copy.isEmpty ? [0] : copy
    }

    @Test func mutatedInputsNeverTakeTheServerDown() throws {
        let scratch = try Scratch("fuzz")
        let server = try ServerProcess(["--workers", "2", "--max-queued", "1000"])
        let seeds = try [Fixtures.h264AacMP4(), Fixtures.adts(), Fixtures.wav()].map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0)).prefix(200_000))
        }
        var random = SeededBytes(seed: 2026)
        let allowed5xx: Set<Int> = []
        var jobs: [String] = []
        var statuses: [Int: Int] = [:]
        for round in 0..<240 {
            let seed = seeds[round % seeds.count]
            let file = try scratch.write("m\(round % 8).bin", Self.mutate(seed, &random))
            let route = round % 2 == 0 ? "/probe" : "/jobs/remux?format=mkv"
            let reply = try Curl.run(server.url(route), ["-T", file])
            statuses[reply.status, default: 0] += 1
            #expect(reply.status != 0, "round \(round): no answer")
            #expect(
                reply.status < 500 || allowed5xx.contains(reply.status), "round \(round): \(reply.status) \(reply.text)"
            )
            #expect(reply.status < 400 || reply.errorCode != nil, "round \(round): an error without a code")
            // A probe child that crashed (or trapped) on a mutation is a parser bug, not a clean refusal.
            #expect(reply.errorCode != "worker_crashed", "round \(round): \(reply.text)")
            if let id = reply.json["id"] as? String { jobs.append(id) }
        }
        for id in jobs {
            let job = try Curl.run(server.url("/jobs/\(id)?wait=60")).json
            let state = job["state"] as? String ?? ""
            #expect(["succeeded", "failed"].contains(state), "job \(id) ended \(state)")
            if state == "failed" {
                // Every mutation must be refused with the engine's own code: a worker that died of a signal
                // (`worker_crashed`) means a trap or a memory error in our code or libav's.
                let code = (job["error"] as? [String: Any])?["code"] as? String
                #expect(code != "internal_error" && code != "worker_crashed", "\(job)")
            }
        }
        #expect(try Curl.run(server.url("/healthz")).status == 200)
        #expect(statuses.keys.contains(200) && jobs.count > 10, "\(statuses)")
    }
}
