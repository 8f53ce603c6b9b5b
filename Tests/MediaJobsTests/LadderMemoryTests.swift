import Foundation
import MediaCore
@testable import MediaJobs
import Testing

/// The estimate a ladder is admitted by: it grows with the renditions, the preset and the processors (x264
/// runs more frame threads), stays above what ladders were measured to map on two processors, and a ladder
/// over the limit is refused with the estimate, the limit and what to change.
@Suite struct LadderMemoryTests {
    static let all = LadderRung.allCases

    func estimate(
        _ rungs: [LadderRung], _ preset: TranscodeJob.Preset, processors: Int = 2, source: (Int, Int) = (3840, 2160)
    ) -> LadderMemory {
        var memory = LadderPlan.memory(
            LadderPlan.renditions(rungs, sourceHeight: source.1), source: source, preset: preset)
        memory.processors = processors
        return memory
    }

    /// Peaks (`VmPeak`, MiB) measured for these ladders of a 2160p source with two processors, the most
    /// seen over repeated runs: the estimate is never below them.
    @Test(arguments: [
        ([LadderRung.p2160], TranscodeJob.Preset.veryfast, 1710), ([.p1080], .veryfast, 989), ([.p720], .veryfast, 972),
        ([.p1080], .ultrafast, 867), ([.p1080], .medium, 1217), ([.p1080], .veryslow, 1456),
        (LadderRung.allCases, .veryfast, 3021), (LadderRung.allCases, .ultrafast, 1794),
        (LadderRung.allCases, .medium, 4600), ([.p1440, .p720, .p360], .medium, 2069),
    ])
    func coversWhatLaddersWereMeasuredToMap(_ rungs: [LadderRung], _ preset: TranscodeJob.Preset, _ peak: Int) {
        let bytes = estimate(rungs, preset).bytes()
        #expect(bytes >= Int64(peak) << 20, "\(rungs) \(preset): \(bytes >> 20) MiB")
        #expect(bytes <= Int64(Double(peak) * 1.5) << 20, "\(rungs) \(preset): \(bytes >> 20) MiB is far over")
    }

    @Test func growsWithRenditionsPresetAndProcessors() {
        #expect(estimate(Self.all, .veryfast).bytes() > estimate([.p2160], .veryfast).bytes())
        #expect(estimate([.p1080], .medium).bytes() > estimate([.p1080], .veryfast).bytes())
        #expect(estimate([.p1080], .veryfast, processors: 16).bytes() > estimate([.p1080], .veryfast).bytes())
        // A small source is never scaled up: a 720p source's 2160p rendition is skipped.
        #expect(estimate(Self.all, .veryfast, source: (1280, 720)).renditions.count == 4)
    }

    @Test func aLadderOverTheLimitIsRefusedSayingWhatToChange() throws {
        let limit: Int64 = 2 << 30
        let error = #expect(throws: MediaError.self) { try estimate(Self.all, .veryfast).check(limit: limit) }
        #expect(error?.code == .invalidOption)
        let message = error?.message ?? ""
        for part in ["estimated 3.", "over the 2.0 GiB", "--job-memory", "2160p alone needs about", "ultrafast needs"] {
            #expect(message.contains(part), "\(message)")
        }
        try estimate(Self.all, .ultrafast).check(limit: limit)
        try estimate([.p1080, .p720, .p480, .p360, .p240], .veryfast).check(limit: limit)
    }
}
