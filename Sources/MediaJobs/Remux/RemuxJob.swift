import CFFmpeg
import MediaCore

/// Container → container by stream copy: no decoding, so every frame and sample stays bit-identical.
///
/// Handles the ISO family (with faststart or fragmentation), Matroska, MPEG-TS, FLV and ASF, track
/// selection, keyframe-exact trims, and carries rotation, language, creation time and edit lists
/// wherever the target can hold them; what it cannot hold is listed in `RemuxResult.warnings`.
public struct RemuxJob: Sendable {
    /// The containers remux reads.
    public static let acceptedInputs: [InputContainer] = [
        .mp4, .matroska, .mpegts, .flv, .asf, .wav, .adts, .h264, .hevc, .mpeg4Video,
    ]

    var input: String
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> RemuxResult {
        let container = try InputFile.classify(path: input, accepting: Self.acceptedInputs)
        if container.isElementaryStream { return try ElementaryRemux(job: self, container: container).run(context) }
        do {
            return try write(container, context, reservingMovie: true)
        } catch is MovieReservation.Overflow {
            // The progress reported so far stands; the second writing reports only its end.
            let quiet = JobContext(isCancelled: context.isCancelled, checkResources: context.checkResources)
            let result = try write(container, quiet, reservingMovie: false)
            context.reportProgress(1)
            return result
        }
    }

    /// The earliest start time the input states for the kept tracks, in `timeBase` (rounded down), or nil
    /// when none states one.
    static func earliestStart(of routes: [RemuxPlan.Route], in source: InputFile, timeBase: AVRational) -> Int64? {
        routes.compactMap { route -> Int64? in
            let start = source.stream(route.inputIndex).pointee.start_time
            guard start != mediad_nopts_value() else { return nil }
            return av_rescale_q_rnd(start, route.inputTimeBase, timeBase, AV_ROUND_DOWN)
        }.min()
    }

    /// Writes the output once. An MP4/MOV/M4A with faststart gets room for its `moov` reserved up front
    /// when `reservingMovie` is true and the plan can bound the `moov`'s size (see `MovieReservation`),
    /// else libav's `+faststart`, which moves the `moov` to the front by rewriting the whole file.
    func write(_ container: InputContainer, _ context: JobContext, reservingMovie: Bool) throws
        -> RemuxResult
    {
        let source = try InputFile(
            path: input, container: container, policy: InputPolicy.streamCopy.handling(damaged: options.damaged))
        try source.findStreamInfo()
        let plan: RemuxPlan
        do {
            plan = try RemuxPlan(input: source, options: options)
        } catch let error as MediaError where error.code == .missingStream {
            // What the cut left of the tracks' descriptions is no track: the cut is what to report.
            guard let cut = source.damage.findings.first(where: { $0.code == .truncatedInput }) else { throw error }
            throw MediaError(.truncatedInput, "\(cut.message); what is left has no track to remux (\(error.message))")
        }
        let fpsWarning =
            options.fps.map { ["fps \($0) was not used: the \(container.displayName) input has its own timestamps"] }
            ?? []
        let routes = plan.routes.values.sorted { $0.outputIndex < $1.outputIndex }
        let anchor =
            routes.first { $0.kind == AVMEDIA_TYPE_VIDEO && !$0.isPictureTrack }
            ?? routes.first { !$0.isPictureTrack } ?? routes[0]
        let requestedStart = options.start.flatMap { $0 > 0 ? $0 : nil }
        if let requestedStart, let duration = source.duration, requestedStart >= duration {
            throw MediaError(
                .emptySelection, "start (\(requestedStart) s) is past the end of the input (\(duration) s)")
        }
        let cutStart = try requestedStart.map {
            try KeyframeSeeker(input: source, anchor: anchor.inputIndex).positionAtKeyframe(before: $0)
        }
        let window = try TrimWindow(
            anchorIndex: anchor.inputIndex, anchorTimeBase: anchor.inputTimeBase, cutStart: cutStart,
            origin: Self.earliestStart(of: routes, in: source, timeBase: anchor.inputTimeBase), end: options.end)
        let destination = try plan.makeOutput(path: output, input: source, start: window.outputZero, end: options.end)
        let reservation =
            reservingMovie ? plan.movieReservation(input: source, output: destination, options: options) : nil
        try destination.writeHeader(
            options: reservation.map { ["moov_size": String($0)] }
                ?? options.muxerOptions(hasVideo: routes.contains { $0.kind == AVMEDIA_TYPE_VIDEO }))
        try plan.coverArt.writePictures(to: destination)

        let audio = routes.filter { $0.kind == AVMEDIA_TYPE_AUDIO }.map(\.inputIndex)
        let leadIn =
            try cutStart == nil && !plan.signalsPriming && !audio.isEmpty
            ? HiddenLeadIn(path: input, container: container, tracks: audio) : HiddenLeadIn()
        var writer = PacketWriter(output: destination, plan: plan, window: window, leavingOut: leadIn.dropped)
        let packet = Packet()
        var count = 0
        let timeBases = Dictionary(uniqueKeysWithValues: routes.map { ($0.inputIndex, $0.inputTimeBase) })
        var readToEnd = true
        while try source.read(into: packet) {
            guard let route = plan.routes[packet.streamIndex] else { continue }
            count += 1
            if count % 64 == 0 {
                try context.checkpoint()
                context.reportProgress(source.progress * 0.99)
            }
            switch window.judge(packet, timeBase: route.inputTimeBase) {
            case .write: try writer.write(packet, route: route)
            case .drop: break
            case .hold: try window.hold(packet)
            }
            for ready in window.release(timeBases: timeBases, atEndOfInput: false) {
                try writer.write(ready, route: plan.routes[ready.streamIndex]!)
            }
            if window.isComplete(otherTracks: routes.count - 1) {
                readToEnd = false
                break
            }
        }
        for ready in window.release(timeBases: timeBases, atEndOfInput: true) {
            try writer.write(ready, route: plan.routes[ready.streamIndex]!)
        }
        try writer.flushHeldPackets(routes: plan.routes, trimmedAtEnd: window.cutEnd != nil)
        try writer.flushFilters()
        let trimmed = cutStart != nil || options.end != nil
        var emptyTracks: [String] = []
        if writer.packetCounts.values.reduce(0, +) == 0 {
            if let nothing = source.nothingRead(of: routes.map(\.inputIndex)) { throw nothing }
            guard trimmed else {
                throw MediaError(
                    .emptyInput,
                    "the input's tracks hold no samples (an initialization segment without its media segments?)")
            }
            throw MediaError(.emptySelection, "no \(anchor.codec) frames fall between start and end")
        } else if writer.packetCounts[anchor.inputIndex, default: 0] == 0, trimmed {
            throw MediaError(.emptySelection, "no \(anchor.codec) frames fall between start and end")
        }
        // libav 5.1's ISO muxers write no `trak` for a track without samples; Matroska keeps its entry.
        let fate =
            plan.format.isISOBaseMedia
            ? "the \(plan.format) output has no such track" : "it is empty in the \(plan.format) output too"
        for route in routes where writer.packetCounts[route.inputIndex, default: 0] == 0 {
            emptyTracks.append("track \(route.inputIndex) (\(route.codec)) holds no samples; \(fate)")
        }
        // libav's mov muxer names tracks 1, 2, … in output stream order.
        let shownEnds = Dictionary(
            uniqueKeysWithValues: writer.hiddenPastEnd.compactMap { index in
                plan.routes[index].flatMap { route in
                    route.inputEnd.map {
                        (UInt32(route.outputIndex + 1), Double($0) * av_q2d(route.inputTimeBase) - window.outputZero)
                    }
                }
            })
        let warnings =
            source.damageWarnings(
                streams: routes.map(\.inputIndex), readToEnd: readToEnd, outputDuration: writer.outputDuration)
            + fpsWarning + plan.warnings + writer.warnings + writer.containerWarnings() + writer.editListWarnings
            + emptyTracks
        try destination.finish { path in
            if options.indexesFragments { try MovieExtendsHeader.insert(intoFileAt: path) }
            try ISOEditEnd.limit(path: path, shown: shownEnds)
        }
        context.reportProgress(1)
        return RemuxResult(
            outputs: [output], warnings: warnings, muxer: plan.muxer,
            tracks: routes.map {
                RemuxResult.Track(
                    inputIndex: $0.inputIndex, outputIndex: $0.outputIndex,
                    kind: $0.kind == AVMEDIA_TYPE_VIDEO ? "video" : "audio", codec: $0.codec,
                    packets: writer.packetCounts[$0.inputIndex, default: 0])
            },
            cutStart: window.seconds(cutStart),
            cutEnd: options.end == nil ? nil : window.seconds(window.cutEnd) ?? source.duration)
    }
}
