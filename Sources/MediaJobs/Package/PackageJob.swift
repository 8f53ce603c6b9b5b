import CFFmpeg
import Foundation
import MediaCore

/// A streaming package: HLS (fMP4 or MPEG-TS segments), DASH, or both over one set of CMAF segments,
/// with the manifests written here from what was muxed (real durations, bit rates and codec strings).
///
/// Without `renditions` the package is one rendition by stream copy: no frame is decoded, and decoding
/// through a manifest gives the source's frames exactly. With them, `LadderIntermediate` first encodes
/// the ABR ladder (the source decoded once, keyframes aligned at segment boundaries) into an intermediate
/// MP4 beside the package, which is then packaged by stream copy like any input and removed.
///
/// Segments end at keyframes of the video (audio-only packages at any frame), never more than one GOP past
/// the target. Every file goes under the primary output's directory as a tree: `master.m3u8`,
/// `manifest.mpd`, `720p/index.m3u8`, `720p/init.mp4`, `720p/seg_00001.m4s`, `audio/…`.
public struct PackageJob: Sendable {
    /// The containers package reads.
    public static let acceptedInputs: [InputContainer] = [.mp4, .matroska, .mpegts, .flv, .asf]
    static let hlsMasterName = "master.m3u8"
    static let dashManifestName = "manifest.mpd"
    /// The ladder's intermediate file, in the package's directory while the package is made.
    static let ladderIntermediateName = "ladder-intermediate.mp4"

    var input: String
    var primaryOutput: String
    var options: Options

    func run(_ context: JobContext) throws -> PackageResult {
        let container = try InputFile.classify(path: input, accepting: Self.acceptedInputs)
        // The primary output's directory exactly as written, so outputs named below it keep its spelling.
        let directory = primaryOutput.lastIndex(of: "/").map { String(primaryOutput[..<$0]) } ?? "."
        guard !options.renditions.isEmpty else {
            let source = try InputFile(
                path: input, container: container,
                policy: InputPolicy.streamCopy.handling(damaged: options.damaged))
            try source.findStreamInfo()
            let plan = try PackagePlan(input: source, options: options)
            var result = try package(source, plan: plan, directory: directory, context: context, progress: 0...0.99)
            result.warnings = salvaged(source, streams: plan.tracks.map(\.inputIndex)) + result.warnings
            return result
        }
        let source = try InputFile(
            path: input, container: container, policy: InputPolicy.transcoding.handling(damaged: options.damaged))
        try source.findStreamInfo()
        let ladder = try LadderPlan(input: source, renditions: options.renditions)
        // Refused before any work when the worker's address space cannot hold the encoders, with what the
        // process maps already as the base.
        if let limit = LadderMemory.processLimit {
            try ladder.memory(preset: options.preset ?? Options.defaultPreset).check(
                limit: limit, base: LadderMemory.processSize ?? LadderMemory.idleWorkerBytes)
        }
        let intermediate = directory + "/" + Self.ladderIntermediateName
        defer { unlink(intermediate) }
        let encoded = try LadderIntermediate(plan: ladder, options: options).encode(
            source, to: intermediate, context: context, progress: 0...0.9)
        let encodedSource = try InputFile(path: intermediate, container: .mp4, policy: .streamCopy)
        try encodedSource.findStreamInfo()
        let plan = try PackagePlan(
            input: encodedSource, options: options, everyVideoTrack: true, sourceIndices: encoded.sourceIndices)
        var result = try package(
            encodedSource, plan: plan, directory: directory, context: context, progress: 0.9...0.99)
        result.warnings =
            salvaged(source, streams: ladder.sourceIndexes) + ladder.warnings + encoded.warnings + result.warnings
        return result
    }

    /// The warnings for what of a damaged `source` could not be read (`InputFile.damageWarnings`).
    private func salvaged(_ source: InputFile, streams: [Int]) -> [String] {
        source.damageWarnings(streams: streams, readToEnd: true, outputDuration: nil)
    }

    /// Cuts the tracks of `plan` into segments and writes the manifests; removes what it wrote if it fails.
    private func package(
        _ source: InputFile, plan: PackagePlan, directory: String, context: JobContext,
        progress: ClosedRange<Double>
    ) throws -> PackageResult {
        let files = PackageFiles(directory: directory)
        let live: Live = (
            playlists: options.format.writesHLS
                ? LivePlaylists(
                    files: files, segmentFormat: options.segmentFormat, segmentDuration: options.segmentDuration)
                : nil,
            mpd: options.format.writesDASH
                ? LiveMPD(files: files, segmentDuration: options.segmentDuration, duration: source.duration) : nil
        )
        do {
            let (renditions, segmentWarnings) = try segment(
                source, plan: plan, files: files, live: live, context: context, progress: progress)
            var result = try writeManifests(renditions, plan: plan, files: files, live: live)
            result.warnings += segmentWarnings + (live.playlists?.stopped.map { [$0] } ?? [])
            try files.syncAll()
            context.reportProgress(1)
            return result
        } catch {
            files.removeAll()
            throw error
        }
    }

    /// Reads the input once, cutting every kept track into segments and publishing the HLS playlists and
    /// the dynamic MPD after each cut (`live`); returns the renditions and a warning
    /// for each track whose encoder delay (AAC priming) the input hides with an edit list (segments carry
    /// every packet but no edit list, so players play the delay as a short silence at the start) or whose
    /// decode times had to be moved to keep increasing.
    private func segment(
        _ source: InputFile, plan: PackagePlan, files: PackageFiles, live: Live, context: JobContext,
        progress: ClosedRange<Double>
    ) throws -> ([PackageRendition], [String]) {
        let segmenters = try plan.tracks.map { track in
            try TrackSegmenter(
                track: track, source: source.stream(track.inputIndex), segmentFormat: options.segmentFormat,
                files: files)
        }
        var cutter = SegmentCutter(
            segmenters: Dictionary(uniqueKeysWithValues: segmenters.map { ($0.track.inputIndex, $0) }),
            anchor: plan.tracks[0].inputIndex, target: options.segmentDuration)
        var timeline = PacketTimeline(
            timeBases: Dictionary(
                uniqueKeysWithValues: plan.tracks.map {
                    ($0.inputIndex, source.stream($0.inputIndex).pointee.time_base)
                }))
        let packet = Packet()
        var count = 0
        var started: Set<Int> = []
        var priming: [String] = []
        while try source.read(into: packet) {
            guard let track = plan.tracks.first(where: { $0.inputIndex == packet.streamIndex }) else { continue }
            if started.insert(track.inputIndex).inserted, packet.skipSamplesAtStart > 0 {
                priming.append(
                    "track \(track.sourceIndex) (\(track.codec)): the segments cannot signal the "
                        + "\(packet.skipSamplesAtStart)-sample encoder delay; players play it as a short silence at the start"
                )
            }
            count += 1
            if count % 64 == 0 {
                try context.checkpoint()
                context.reportProgress(
                    progress.lowerBound + (progress.upperBound - progress.lowerBound) * source.progress)
            }
            for ready in try timeline.admit(packet) {
                if try cutter.add(ready, track: ready.streamIndex, time: timeline.seconds(ready)) {
                    try live.playlists?.publish(segmenters)
                    try live.mpd?.publish(segmenters)
                }
            }
        }
        for ready in try timeline.drain() {
            try cutter.add(ready, track: ready.streamIndex, time: timeline.seconds(ready))
        }
        try cutter.finish()
        for segmenter in segmenters where segmenter.segments.isEmpty {
            throw MediaError(
                .emptyInput, "track \(segmenter.track.sourceIndex) (\(segmenter.track.codec)) holds no samples")
        }
        return (segmenters.map { PackageRendition($0) }, priming + segmenters.flatMap(\.warnings))
    }

    /// Writes the final manifests over those `live` published: the static MPD, and the media playlists (the
    /// last version of each with the remaining segments and `#EXT-X-ENDLIST` appended) then the master
    /// playlist; describes the package.
    private func writeManifests(
        _ renditions: [PackageRendition], plan: PackagePlan, files: PackageFiles, live: Live
    ) throws -> PackageResult {
        var manifests: [String] = []
        if let mpd = live.mpd {
            try files.write(mpd.final(renditions), as: Self.dashManifestName)
            manifests.append(Self.dashManifestName)
        }
        if let live = live.playlists {
            let longest = renditions.flatMap(\.durations).map(HLSPlaylists.rounded).max() ?? 0
            let playlists = HLSPlaylists(
                renditions: renditions, segmentFormat: options.segmentFormat,
                targetDuration: max(live.targetDuration, longest))
            for rendition in renditions {
                try files.write(playlists.mediaPlaylist(rendition, ended: true), as: rendition.playlist)
                if rendition.track.isVideo, let iFrames = rendition.iFramePlaylist {
                    try files.write(playlists.iFramePlaylist(rendition), as: iFrames)
                }
            }
            try files.write(playlists.masterPlaylist(withIFrames: true), as: Self.hlsMasterName)
            manifests.insert(Self.hlsMasterName, at: 0)
        }
        return PackageResult(
            outputs: files.names.map { files.directory + "/" + $0 },
            warnings: plan.warnings + keyframeWarnings(renditions),
            format: options.format.rawValue, segmentFormat: options.segmentFormat.rawValue,
            segmentDuration: options.segmentDuration, manifests: manifests,
            renditions: renditions.map { $0.summary(hasPlaylist: options.format.writesHLS) })
    }

    /// What publishes the manifests while the package is written: the HLS playlists and/or the DASH MPD.
    private typealias Live = (playlists: LivePlaylists?, mpd: LiveMPD?)

    /// A warning when the video's keyframes are so far apart that segments last over three times the target.
    private func keyframeWarnings(_ renditions: [PackageRendition]) -> [String] {
        guard let video = renditions.first(where: { $0.track.isVideo }), let longest = video.durations.max(),
            longest > 3 * options.segmentDuration
        else { return [] }
        let lengths = video.durations.map { HLSPlaylists.decimal($0, places: 3) }.joined(separator: ", ")
        return [
            "the video's keyframes are up to \(HLSPlaylists.decimal(longest, places: 3)) s apart, over three times "
                + "segment_duration (\(options.segmentDuration) s); segments cut at keyframes last \(lengths) s"
        ]
    }
}
