import CFFmpeg
import MediaCore

/// Writes the packets a remux keeps: shifts them for a trim, runs bitstream conversions, rescales to the
/// output time base, and notes AAC priming that the target container cannot signal.
///
/// Some demuxers give packets no duration. ISO muxers derive every sample's duration from the next
/// decode time except the last one's, which they take from the packet: left at zero, an edit list would
/// hide the final frame. So a packet without a duration is held until the next one of its track arrives
/// (duration = DTS difference); the track's last one ends where the input says the track ends.
/// Video packets pass through `DecodeTimeShift` first, so none is shown before it is decoded.
struct PacketWriter {
    let output: OutputFile
    let plan: RemuxPlan
    let window: TrimWindow
    private(set) var packetCounts: [Int: Int] = [:]
    private(set) var warnings: [String] = []
    private let filtered = Packet()
    private var undated: [Int: Packet] = [:]
    private var lastStep: [Int: Int64] = [:]
    /// Where each track's last packet ends, in seconds of the output, by input index.
    private var ends: [Int: Double] = [:]
    /// Input indexes of the video tracks written with a pts other than their dts (reordered frames).
    private var reordered: Set<Int> = []
    private var decodeTimes = DecodeTimeShift()
    /// Per track, how many packets the input's edit list hides that the output will show.
    private var hiddenButShown: [Int: Int] = [:]
    /// Tracks with frames the input's edit list hides past its end, whose output edit must end early.
    private(set) var hiddenPastEnd: Set<Int> = []

    /// Per track, how many of its leading hidden packets are still to be left out (see `HiddenLeadIn`).
    private var leavingOut: [Int: Int]
    /// Input indexes of the tracks whose first packet has arrived (and told their priming).
    private var seen: Set<Int> = []
    /// Per audio track, the last decode time `av_rescale_delta` rebuilt (see `rescale(_:from:route:)`).
    private var lastRebuilt: [Int: Int64] = [:]
    private var decodeOrder = IncreasingDecodeTimes()

    init(output: OutputFile, plan: RemuxPlan, window: TrimWindow, leavingOut: [Int: Int] = [:]) {
        self.output = output
        self.plan = plan
        self.window = window
        self.leavingOut = leavingOut
        for (index, count) in leavingOut.sorted(by: { $0.key < $1.key }) {
            guard let route = plan.routes[index] else { continue }
            warnings.append(
                "track \(index) (\(route.codec)): the first \(count) packet\(count == 1 ? "" : "s") that the input's edit "
                    + "list hides (all but the last before the first shown one) \(count == 1 ? "was" : "were") left out of "
                    + "the \(plan.format) output, which cannot hide them; decoding was checked to give the same samples "
                    + "from the first shown packet on")
        }
    }

    mutating func write(_ packet: Packet, route: RemuxPlan.Route) throws {
        if seen.insert(route.inputIndex).inserted { notePriming(packet, route: route) }
        if let count = leavingOut[route.inputIndex], count > 0, packet.isDiscarded {
            leavingOut[route.inputIndex] = count - 1
            return
        }
        guard route.kind == AVMEDIA_TYPE_VIDEO else { return try writeDecodable(packet, route: route) }
        for ready in try decodeTimes.admit(packet, track: route.inputIndex) {
            try writeDecodable(ready, route: route)
        }
    }

    /// Writes `packet`, whose decode time is not after its presentation time.
    private mutating func writeDecodable(_ packet: Packet, route: RemuxPlan.Route) throws {
        if let previous = undated.removeValue(forKey: route.inputIndex) {
            if let start = previous.dts, let next = packet.dts, let step = Self.distance(from: start, to: next) {
                previous.duration = step
                lastStep[route.inputIndex] = step
            }
            try process(previous, route: route)
        }
        if packet.duration == 0 {
            undated[route.inputIndex] = try packet.clone()
        } else {
            try process(packet, route: route)
        }
    }

    /// Writes the packets still held for a duration, at the end of the input.
    mutating func flushHeldPackets(routes: [Int: RemuxPlan.Route], trimmedAtEnd: Bool) throws {
        for (index, packet) in try decodeTimes.drain() {
            try writeDecodable(packet, route: routes[index]!)
        }
        for (index, packet) in undated.sorted(by: { $0.key < $1.key }) {
            let route = routes[index]!
            if !trimmedAtEnd, let end = route.inputEnd, let pts = packet.pts,
                let rest = Self.distance(from: pts, to: end), Self.isPlausible(rest, after: lastStep[index])
            {
                packet.duration = rest
            } else {
                packet.duration = lastStep[index] ?? 0
            }
            try process(packet, route: route)
        }
        undated.removeAll()
    }

    private mutating func process(_ packet: Packet, route: RemuxPlan.Route) throws {
        if packet.isDiscarded { noteHidden(packet, route: route) }
        packetCounts[route.inputIndex, default: 0] += 1
        let shift = window.shift(for: route.inputTimeBase)
        if shift != 0 {
            packet.pts = try packet.pts.map { try Self.shifted($0, by: shift) }
            packet.dts = try packet.dts.map { try Self.shifted($0, by: shift) }
        }
        if route.splitsAMRFrames {
            try writeAMRFrames(of: packet, route: route)
            return
        }
        guard let filter = route.filter else {
            try emit(packet, from: route.inputTimeBase, route: route)
            return
        }
        try filter.send(packet)
        while try filter.receive(into: filtered) {
            try emit(filtered, from: filter.outputTimeBase, route: route)
        }
    }

    /// Drains bitstream filters at the end of the input.
    mutating func flushFilters() throws {
        for route in plan.routes.values {
            guard let filter = route.filter else { continue }
            try filter.send(nil)
            while try filter.receive(into: filtered) {
                try emit(filtered, from: filter.outputTimeBase, route: route)
            }
        }
    }

    /// Writes each AMR frame of a multi-frame sample as its own packet, 160 samples apart.
    private mutating func writeAMRFrames(of packet: Packet, route: RemuxPlan.Route) throws {
        guard let frames = AMRFrameSplitter.frames(in: packet.data), frames.count > 1 else {
            try emit(packet, from: route.inputTimeBase, route: route)
            return
        }
        let step = av_rescale_q(AMRFrameSplitter.samplesPerFrame, AVRational(num: 1, den: 8000), route.inputTimeBase)
        let bytes = Array(packet.data)
        for (index, range) in frames.enumerated() {
            let part = try packet.clone()
            try part.setData(Array(bytes[range]))
            part.pts = packet.pts.map { $0 + Int64(index) * step }
            part.dts = packet.dts.map { $0 + Int64(index) * step }
            part.duration = step
            try emit(part, from: route.inputTimeBase, route: route)
        }
    }

    private mutating func emit(_ packet: Packet, from timeBase: AVRational, route: RemuxPlan.Route) throws {
        let outputTimeBase = output.stream(route.outputIndex).pointee.time_base
        rescale(packet, from: timeBase, route: route)
        try decodeOrder.admit(
            packet, track: route.inputIndex, timeBase: outputTimeBase,
            allowsEqual: output.context.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT != 0)
        if let start = packet.pts ?? packet.dts {
            let end = Double(start + packet.duration) * av_q2d(outputTimeBase)
            ends[route.inputIndex] = max(ends[route.inputIndex] ?? end, end)
        }
        if route.kind == AVMEDIA_TYPE_VIDEO, let pts = packet.pts, let dts = packet.dts, pts != dts {
            reordered.insert(route.inputIndex)
        }
        packet.streamIndex = route.outputIndex
        packet.pointer.pointee.pos = -1
        try output.write(packet)
    }

    /// Moves `packet` to its output stream's time base. Audio from a time base coarser than its sample
    /// rate (Matroska's, FLV's and ASF's milliseconds) gets its decode times rebuilt from the samples
    /// each packet holds (`av_rescale_delta`), as the ffmpeg CLI's stream copy does: rescaled one by one,
    /// 1024-sample AAC frames at 48 kHz came out 1008 and 1056 ticks apart, and an MP4 `stts` of two
    /// entries took one per packet.
    private mutating func rescale(_ packet: Packet, from timeBase: AVRational, route: RemuxPlan.Route) {
        let parameters = output.stream(route.outputIndex).pointee.codecpar!
        let outputTimeBase = output.stream(route.outputIndex).pointee.time_base
        let sampleRate = parameters.pointee.sample_rate
        guard route.kind == AVMEDIA_TYPE_AUDIO, sampleRate > 0, let dts = packet.dts,
            av_cmp_q(timeBase, AVRational(num: 1, den: sampleRate)) > 0
        else { return packet.rescale(from: timeBase, to: outputTimeBase) }
        let stated = av_get_audio_frame_duration2(parameters, Int32(clamping: packet.size))
        let samples = stated > 0 ? stated : parameters.pointee.frame_size
        guard samples > 0 else { return packet.rescale(from: timeBase, to: outputTimeBase) }
        // A hostile file's pts and dts can lie too far apart to subtract: those keep the plain rescale.
        let gap = packet.pts.map { $0.subtractingReportingOverflow(dts) }
        guard gap?.overflow != true else { return packet.rescale(from: timeBase, to: outputTimeBase) }
        var last = lastRebuilt[route.inputIndex] ?? mediad_nopts_value()
        let rebuilt = av_rescale_delta(
            timeBase, dts, AVRational(num: 1, den: sampleRate), samples, &last, outputTimeBase)
        let presented = gap.map {
            rebuilt.addingReportingOverflow(av_rescale_q($0.partialValue, timeBase, outputTimeBase))
        }
        guard presented?.overflow != true else { return packet.rescale(from: timeBase, to: outputTimeBase) }
        lastRebuilt[route.inputIndex] = last
        packet.rescale(from: timeBase, to: outputTimeBase)
        packet.dts = rebuilt
        packet.pts = presented?.partialValue
    }

    /// Whether `rest`, from the last packet to where the track says it ends, can be that packet's duration:
    /// a 32-bit value (the ISO muxers refuse more), and not out of all proportion with the packets before
    /// (`step`, the last of them). A fragmented file whose `mehd`/`tkhd` states 2^32 - 1 ticks gave the last
    /// frame a day and a half.
    private static func isPlausible(_ rest: Int64, after step: Int64?) -> Bool {
        rest <= Int64(Int32.max) && step.map { rest <= 64 * $0 } ?? true
    }

    /// `later - earlier` when it is positive and representable; timestamps of a hostile file can be far apart.
    private static func distance(from earlier: Int64, to later: Int64) -> Int64? {
        let (difference, overflow) = later.subtractingReportingOverflow(earlier)
        return overflow || difference <= 0 ? nil : difference
    }

    private static func shifted(_ time: Int64, by shift: Int64) throws -> Int64 {
        let (shifted, overflow) = time.subtractingReportingOverflow(shift)
        guard !overflow else {
            throw MediaError(.invalidInput, "a timestamp of the input (\(time)) is out of range once trimmed")
        }
        return shifted
    }

    /// How long the output lasts: where its last packet ends, in seconds.
    var outputDuration: Double? { ends.values.max() }

    /// What the target's muxer loses that mediad cannot restore (see `ContainerLimits`).
    func containerWarnings() -> [String] {
        let routes = plan.routes.values
        let videoEnd = routes.filter { $0.kind == AVMEDIA_TYPE_VIDEO }.compactMap { ends[$0.inputIndex] }.max()
        let audioEnd = routes.filter { $0.kind == AVMEDIA_TYPE_AUDIO }.compactMap { ends[$0.inputIndex] }.max()
        let clock = ContainerLimits.stoppedClock(format: plan.format, videoEnd: videoEnd, audioEnd: audioEnd)
        let order = reordered.sorted().compactMap {
            ContainerLimits.lostPresentationOrder(format: plan.format, track: "track \($0)")
        }
        let codecs = Dictionary(uniqueKeysWithValues: routes.map { ($0.inputIndex, $0.codec) })
        return order + (clock.map { [$0] } ?? [])
            + decodeOrder.warnings(codecs: codecs, format: "\(plan.format)")
    }

    /// Notes a packet the input's edit list decodes but does not show. The ISO muxers hide what comes
    /// before the first shown frame by themselves, and what comes after the input's end once `ISOEditEnd`
    /// has shortened their edit (whole, untrimmed files only); other targets show it.
    private mutating func noteHidden(_ packet: Packet, route: RemuxPlan.Route) {
        let pastEnd = route.inputEnd.map { (packet.pts ?? .min) >= $0 } ?? false
        if pastEnd, plan.signalsPriming, window.cutStart == nil, !window.cutsEnd {
            hiddenPastEnd.insert(route.inputIndex)
        } else if pastEnd || !plan.format.isISOBaseMedia {
            hiddenButShown[route.inputIndex, default: 0] += 1
        }
    }

    /// Warnings for the packets an edit list of the input hides and the output shows.
    var editListWarnings: [String] {
        hiddenButShown.sorted { $0.key < $1.key }.compactMap { index, count in
            guard let route = plan.routes[index] else { return nil }
            let what = route.kind == AVMEDIA_TYPE_VIDEO ? "frame" : "packet"
            return
                "track \(index) (\(route.codec)): \(count) \(what)\(count == 1 ? "" : "s") that the input's edit list "
                + "hides (decoded, not shown) \(count == 1 ? "is" : "are") shown in the \(plan.format) output, which cannot hide them"
        }
    }

    private mutating func notePriming(_ packet: Packet, route: RemuxPlan.Route) {
        guard route.kind == AVMEDIA_TYPE_AUDIO, !plan.signalsPriming, window.cutStart == nil else { return }
        let skip = packet.skipSamplesAtStart
        guard skip > 0 else { return }
        warnings.append(
            "track \(route.inputIndex): \(plan.format)\(plan.format.isISOBaseMedia ? " (fragmented)" : "") cannot signal the \(skip)-sample \(route.codec) encoder delay; "
                + "players will play it as a short silence at the start")
    }
}
