import CFFmpeg
import MediaCore

/// The leading audio packets that an input's edit list hides and a remux may leave out, for targets that
/// cannot hide them (Matroska, MPEG-TS, FLV, ASF, fragmented MP4).
///
/// An MP4 edit list can hide far more than an encoder's priming (a file cut by editing its list, 25 AAC
/// packets of it), and such a target would play all of it. A decoder needs the packet before the first
/// shown one to decode that one exactly (an MDCT's overlap), and often no more, but a decoder can carry
/// state further (AAC's noise substitution draws from a generator that every noisy band advances). So it
/// is checked, not assumed: each audio track with more than one hidden leading packet is
/// decoded twice, once whole and once from the last hidden packet on, and the packets before that are
/// left out only when every frame from the first shown packet on decodes to the same samples both ways.
struct HiddenLeadIn {
    /// How many leading packets of each input track (by index) the output leaves out.
    private(set) var dropped: [Int: Int] = [:]

    /// No packet is left out: targets that hide what the edit list hides themselves, and trimmed outputs.
    init() {}

    /// Finds, for each of `tracks` (audio, by input index) of the input at `path`, the hidden leading
    /// packets that can go. Reads the input a second time; stops as soon as no track has any left to check.
    ///
    /// Only a track whose first packet is hidden is decoded. One whose decoder the stream-copy policy does
    /// not allow (e.g. DTS) or libav cannot open (xHE-AAC in libav 5.1) is copied whole, as before.
    ///
    /// A damaged input is read as far as it can be (the remux itself refuses it or reports the damage).
    init(path: String, container: InputContainer, tracks: [Int]) throws {
        let input = try InputFile(
            path: path, container: container, policy: InputPolicy.streamCopy.handling(damaged: .salvage))
        try input.findStreamInfo()
        var unseen = Set(tracks)
        for stream in input.streams where !unseen.contains(Int(stream.pointee.index)) {
            stream.pointee.discard = AVDISCARD_ALL
        }
        var checks: [Int: Check] = [:]
        let packet = Packet()
        while !checks.isEmpty || !unseen.isEmpty, try input.read(into: packet) {
            let index = packet.streamIndex
            if unseen.remove(index) != nil {
                let stream = input.stream(index)
                guard packet.isDiscarded, let whole = try? Decoder(stream: stream, of: input),
                    let trimmed = try? Decoder(stream: stream, of: input)
                else {
                    stream.pointee.discard = AVDISCARD_ALL
                    continue
                }
                checks[index] = Check(decoders: (whole, trimmed))
            }
            guard var check = checks[index] else { continue }
            do {
                try check.take(packet)
            } catch {
                check.verdict = .keep
            }
            switch check.verdict {
            case .undecided: checks[index] = check
            case .keep:
                checks[index] = nil
                input.stream(index).pointee.discard = AVDISCARD_ALL
            }
        }
        for (index, var check) in checks where check.leftOut > 0 && (try? check.finish()) == true {
            dropped[index] = check.leftOut
        }
    }

    /// One track's check: its hidden leading packets until the first shown one, then both decodings.
    private struct Check {
        enum Verdict { case undecided, keep }

        /// The decoder that gets every packet, and the one that gets none of those left out.
        let decoders: (whole: Decoder, trimmed: Decoder)
        var verdict = Verdict.undecided
        /// The hidden leading packets so far, and the last of them, which the trimmed decoding starts with.
        private var hiddenCount = 0
        private var lastHidden: Packet?
        /// Where the first shown packet starts: frames from here on must match.
        private var shownFrom: Int64?
        private(set) var leftOut = 0
        private var pending: (whole: [[UInt8]], trimmed: [[UInt8]]) = ([], [])
        /// Frames found the same both ways: none (a decoder that times no frame) proves nothing.
        private var matched = 0
        private let frame = Frame()

        init(decoders: (whole: Decoder, trimmed: Decoder)) { self.decoders = decoders }

        mutating func take(_ packet: Packet) throws {
            let hidden = shownFrom == nil && packet.isDiscarded
            if shownFrom == nil, !hidden { try start(at: packet) }
            guard verdict == .undecided else { return }
            packet.revealHiddenSamples()
            try decode(packet, both: !hidden)
            if hidden {
                hiddenCount += 1
                lastHidden = try packet.clone()
            }
        }

        /// At the first shown packet, the trimmed decoding starts with the last hidden one; at most one hidden
        /// packet leaves nothing to leave out.
        private mutating func start(at packet: Packet) throws {
            guard hiddenCount > 1, let lastHidden, let start = packet.pts else {
                verdict = .keep
                return
            }
            shownFrom = start
            leftOut = hiddenCount - 1
            try decoders.trimmed.send(lastHidden)
            while try decoders.trimmed.receive(into: frame) {}
        }

        /// Whether the rest, once both decoders are drained, matched.
        mutating func finish() throws -> Bool {
            try decode(nil, both: true)
            return verdict == .undecided && matched > 0 && pending.whole.isEmpty && pending.trimmed.isEmpty
        }

        private mutating func decode(_ packet: Packet?, both: Bool) throws {
            try decoders.whole.send(packet)
            while try decoders.whole.receive(into: frame) { keep(frame, whole: true) }
            guard both else { return }
            try decoders.trimmed.send(packet)
            while try decoders.trimmed.receive(into: frame) { keep(frame, whole: false) }
            while let whole = pending.whole.first, let trimmed = pending.trimmed.first {
                guard whole == trimmed else {
                    verdict = .keep
                    return
                }
                pending.whole.removeFirst()
                pending.trimmed.removeFirst()
                matched += 1
            }
        }

        /// Queues a frame from the first shown packet on for comparison.
        private mutating func keep(_ frame: Frame, whole: Bool) {
            guard let shownFrom, frame.pointer.pointee.pts >= shownFrom else { return }
            if whole { pending.whole.append(frame.sampleBytes) } else { pending.trimmed.append(frame.sampleBytes) }
        }
    }
}
