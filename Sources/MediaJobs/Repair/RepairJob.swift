import CFFmpeg
import MediaCore

/// Rebuilds a recording whose app, camera or phone died before it wrote its index (`moov`).
///
/// A fragmented MP4 cut off mid-fragment keeps its complete fragments, with no reference. Any other broken
/// recording needs a healthy `reference` made with the same device or settings: its codec configuration
/// describes the samples, and the broken file's media data (`mdat`) is walked sample by sample
/// (`MediaDataWalker`) and written into a new file (`RepairWriter`). A whole input is remuxed as it is.
public struct RepairJob: Sendable {
    /// Path of the broken recording.
    var input: String
    /// Path of the healthy recording made with the same settings, if given.
    var reference: String?
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> RepairResult {
        let window = try ByteWindow(path: input)
        guard window.size > 0 else { throw MediaError(.emptyInput, "the input file is empty") }
        let layout = try RecordingLayout(reading: window)
        if layout.isWhole && layout.hasMovie {
            do {
                return try remuxWhole(context, bytes: window.size)
            } catch let error as MediaError where reference != nil && error.code != .cancelled {
                // A whole structure can still index samples that are not there: walk the data instead.
            }
        }
        if layout.hasFragments && layout.hasMovie {
            return try keepFragments(layout, context)
        }
        guard let reference else {
            throw MediaError(
                .referenceRequired,
                "the recording has no index to read (no 'moov', or no complete fragment): send a healthy "
                    + "recording made with the same device and settings as 'reference'")
        }
        return try rebuild(layout, window: window, reference: try ReferenceProfile(path: reference), context)
    }

    /// An input that is not broken: remuxed, with a warning saying so.
    private func remuxWhole(_ context: JobContext, bytes: Int64) throws -> RepairResult {
        let remuxed = try RemuxJob(input: input, output: output, options: try .init(format: options.format.container))
            .run(context)
        let tracks = try WrittenTracks.measure(output, context: context)
        return result(
            method: "intact", tracks: tracks,
            warnings: ["the input is whole: it was remuxed as it is"] + remuxed.warnings,
            walked: bytes, recovered: bytes, skipped: SkippedRanges())
    }

    private func keepFragments(_ layout: RecordingLayout, _ context: JobContext) throws -> RepairResult {
        let salvage = FragmentSalvage(layout)
        let remuxed = try salvage.write(from: input, to: output, format: options.format.container, context: context)
        let tracks = try WrittenTracks.measure(output, context: context)
        var skipped = SkippedRanges()
        skipped.add(salvage.keptEnd..<layout.fileSize)
        var warnings = remuxed.warnings
        if reference != nil {
            warnings.append("the recording is fragmented: its fragments were kept and the reference was not needed")
        }
        if salvage.fragmentsDropped > 0 {
            warnings.append(
                "dropped \(salvage.fragmentsDropped) fragment(s) cut off by the end of the file "
                    + "(\(layout.fileSize - salvage.keptEnd) bytes)")
        }
        var result = result(
            method: "fragments", tracks: tracks, warnings: warnings, walked: layout.fileSize,
            recovered: salvage.keptEnd, skipped: skipped)
        result.fragmentsKept = salvage.fragmentsKept
        result.fragmentsDropped = salvage.fragmentsDropped
        return result
    }

    func result(
        method: String, tracks: [RepairResult.Track], warnings: [String], walked: Int64, recovered: Int64,
        skipped: SkippedRanges
    ) -> RepairResult {
        RepairResult(
            outputs: [output], warnings: warnings, format: options.format.rawValue, method: method, tracks: tracks,
            durationSeconds: tracks.map(\.seconds).max() ?? 0, mediaDataBytes: walked, recoveredBytes: recovered,
            skippedBytes: skipped.totalBytes,
            skipped: skipped.ranges.prefix(RepairResult.maxSkippedRanges).map {
                RepairResult.SkippedRange(offset: $0.lowerBound, bytes: Int64($0.count))
            })
    }
}
