import Foundation

/// The part of the input a transcode keeps, as libavfilter expressions: `trim`/`atrim` cut it on exact
/// frame and sample times, and `setpts`/`asetpts` move it to start at zero on the output's timeline.
struct TimeWindow {
    /// The input's own start time (MPEG-TS often starts at 1.4 s), which `start` and `end` count from.
    var origin: Double
    var start: Double?
    var end: Double?

    /// The filters that cut and re-time a video (`prefix` "") or audio (`prefix` "a") chain, or none.
    func filters(prefix: String) -> [String] {
        let from = origin + (start ?? 0)
        var trims: [String] = []
        if let start, start > 0 { trims.append("start=\(Self.seconds(origin + start))") }
        if let end { trims.append("end=\(Self.seconds(origin + end))") }
        var filters = trims.isEmpty ? [] : ["\(prefix)trim=" + trims.joined(separator: ":")]
        if from != 0 { filters.append("\(prefix)setpts=PTS-\(Self.seconds(from))/TB") }
        return filters
    }

    /// How long the output will be, when known.
    func expectedDuration(inputDuration: Double?) -> Double? {
        let last = end.map { min($0, inputDuration ?? $0) } ?? inputDuration
        return last.map { max(0, $0 - (start ?? 0)) }
    }

    /// Seconds as libavfilter's duration syntax reads them: fixed-point, microsecond precision.
    private static func seconds(_ value: Double) -> String { String(format: "%.6f", value) }
}
