import MediaCore

extension MediaDataWalker {
    /// The audio frame (AAC) or run (PCM) at `position`, with its size in bytes and its samples; nil when
    /// none starts there.
    func audioItem(at position: Int64, end: Int64) throws -> (size: Int, samples: Int)? {
        guard let track = referenceAudio else { return nil }
        switch track.coding {
        case .aac:
            guard let frame = try aacFrame(at: position, end: end) else { return nil }
            // An AAC frame must be followed by something that checks out, as random bytes decode now and
            // then: the end, a video sample (whole or cut off by the end), another frame; without video,
            // less than a frame's bytes (a frame cut off by the end).
            let next = position + Int64(frame.size)
            if try next == end || videoCheck(at: next, end: end).sample != nil { return frame }
            if case .cutOff = try videoCheck(at: next, end: end) { return frame }
            if referenceVideo == nil, let aac, end - next < Int64(aac.maxFrameSize) { return frame }
            return try aacFrame(at: next, end: end) != nil ? frame : nil
        case .pcm(let blockAlign, let runLengths, let packetSize):
            let run = try pcmRun(
                at: position, end: end, blockAlign: blockAlign, runLengths: runLengths, packetSize: packetSize)
            return run.map { ($0, $0 / blockAlign) }
        }
    }

    /// The AAC frame at `position` whose first element is one the reference's frames start with. A frame
    /// without audio (`SilentAACFrame`, as libfaac's first frame carries its name) counts as a frame of the
    /// reference's length, when the reference has such frames too: random bytes are often a fill element
    /// and END.
    func aacFrame(at position: Int64, end: Int64) throws -> (size: Int, samples: Int)? {
        guard let aac, let track = referenceAudio,
            case .aac(let frameSamples, let leadingBits, let silentFrames) = track.coding, position < end
        else { return nil }
        if let leadingBits, !leadingBits.contains(try window.byte(at: position) >> 1) { return nil }
        guard let frame = try aac.frame(at: position, end: end, in: window) else { return nil }
        if frame.samples > 0 { return frame }
        return silentFrames ? (frame.size, frameSamples) : nil
    }

    /// PCM has no framing: a run is the bytes up to the next video sample (whole, or cut off by the end).
    /// Run lengths the reference shows are tried first; then every sample frame boundary up to twice its
    /// longest run (at least a second of audio). Where a video sample starts at `position` itself, only a
    /// run of a length the reference shows is believed. Without video, or at the end of the data, the run
    /// goes on to the end (in whole sample frames), one packet at a time.
    private func pcmRun(at position: Int64, end: Int64, blockAlign: Int, runLengths: [Int], packetSize: Int) throws
        -> Int?
    {
        let left = end - position
        guard left >= Int64(blockAlign), let track = referenceAudio else { return nil }
        let wholeFrames = Int(left / Int64(blockAlign)) * blockAlign
        guard referenceVideo != nil else { return min(wholeFrames, packetSize) }
        /// Whether a video sample, whole or cut off by the end, starts at `next`.
        func videoStarts(at next: Int64) throws -> Bool {
            if case .none = try videoCheck(at: next, end: end) { return false }
            return true
        }
        for length in runLengths where Int64(length) <= left {
            let next = position + Int64(length)
            if try next == end || videoStarts(at: next) { return length }
        }
        if try videoSample(at: position, end: end) != nil { return nil }
        let limit = max(2 * (runLengths.last ?? 0), track.sampleRate * blockAlign)
        var length = blockAlign
        while length <= limit && Int64(length) < left {
            if try videoStarts(at: position + Int64(length)) { return length }
            length += blockAlign
        }
        return Int64(limit) >= left ? wholeFrames : nil
    }
}
