import CFFmpeg
import MediaCore

/// Copies an input's chapters (Nero `chpl` or a QuickTime chapter track, Matroska chapters, ASF markers) to
/// an output whose muxer stores them, moved and clipped to the part of the input a trim keeps.
enum ChapterCopy {
    /// Adds the chapters of `input` that overlap `start`…`end` seconds to `output`, before its header is
    /// written, shifted so that `start` is 0; returns how many were added.
    @discardableResult
    static func copy(from input: InputFile, to output: OutputFile, start: Double, end: Double?) throws -> Int {
        let context = output.context
        var added = 0
        for index in 0..<Int(input.context.pointee.nb_chapters) {
            guard let chapter = input.context.pointee.chapters[index]?.pointee,
                chapter.time_base.num > 0, chapter.time_base.den > 0,
                let range = clipped(chapter, start: start, end: end)
            else { continue }
            guard let memory = av_mallocz(MemoryLayout<AVChapter>.size),
                let grown = av_realloc_array(
                    context.pointee.chapters, Int(context.pointee.nb_chapters) + 1,
                    MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size)
            else { throw MediaError(.internalError, "cannot allocate a chapter") }
            let copy = memory.bindMemory(to: AVChapter.self, capacity: 1)
            copy.pointee.id = chapter.id
            copy.pointee.time_base = chapter.time_base
            copy.pointee.start = range.lowerBound
            copy.pointee.end = range.upperBound
            av_dict_copy(&copy.pointee.metadata, chapter.metadata, 0)
            let chapters = grown.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: added + 1)
            context.pointee.chapters = chapters
            chapters[Int(context.pointee.nb_chapters)] = copy
            context.pointee.nb_chapters += 1
            added += 1
        }
        return added
    }

    /// The chapter's span in its own time base once `start` seconds are cut from the front and everything
    /// after `end` from the back; nil when nothing of it is left or its times are out of range.
    private static func clipped(_ chapter: AVChapter, start: Double, end: Double?) -> Range<Int64>? {
        let offset = ticks(start, chapter.time_base)
        let (first, firstOverflow) = chapter.start.subtractingReportingOverflow(offset)
        let (last, lastOverflow) = chapter.end.subtractingReportingOverflow(offset)
        guard !firstOverflow, !lastOverflow else { return nil }
        let limit = end.map { ticks($0, chapter.time_base) &- offset } ?? Int64.max
        let (lower, upper) = (max(0, first), min(last, limit))
        return lower < upper ? lower..<upper : nil
    }

    /// Whole ticks of `timeBase` in `seconds` (which a trim keeps within the input's duration).
    private static func ticks(_ seconds: Double, _ timeBase: AVRational) -> Int64 {
        let microseconds = Int64(exactly: (seconds * 1_000_000).rounded()) ?? 0
        return av_rescale_q(microseconds, AVRational(num: 1, den: 1_000_000), timeBase)
    }
}
