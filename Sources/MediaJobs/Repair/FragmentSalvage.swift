import Foundation
import MediaCore

/// The complete fragments of a fragmented MP4 cut off mid-fragment: everything up to the end of the last
/// `moof` whose `mdat` is whole. Each fragment indexes its own samples, so no reference is needed.
struct FragmentSalvage {
    /// Where the kept part of the file ends.
    let keptEnd: Int64
    let fragmentsKept: Int
    /// Fragments begun and not finished: a `moof` without its whole `mdat`, or cut itself.
    let fragmentsDropped: Int

    /// The fragments of `layout`, which must have a complete movie header before its first fragment.
    init(_ layout: RecordingLayout) {
        var keptEnd = layout.boxes.first { $0.type == "moov" }.map(\.end) ?? 0
        var kept = 0
        var dropped = 0
        var pending = false
        for box in layout.boxes where box.offset >= keptEnd {
            guard box.isComplete else {
                if pending || box.type == "moof" || box.type == "mdat" { dropped += 1 }
                pending = false
                break
            }
            switch box.type {
            case "moof":
                if pending { dropped += 1 }
                pending = true
            case "mdat" where pending:
                kept += 1
                keptEnd = box.end
                pending = false
            default:
                break
            }
        }
        if pending { dropped += 1 }
        self.keptEnd = keptEnd
        fragmentsKept = kept
        fragmentsDropped = dropped
    }

    /// Copies the kept part of `input` beside `output` and remuxes it there into `output`.
    func write(
        from input: String, to output: String, format: ContainerFormat, context: JobContext
    ) throws -> RemuxResult {
        guard fragmentsKept > 0 else {
            throw MediaError(
                .nothingRecovered, "the file's movie header is whole but none of its fragments is: nothing to keep")
        }
        let kept = OutputDirectory.containing(output) + "/.repair-\(UUID().uuidString).mp4"
        defer { unlink(kept) }
        try Self.copy(input, prefix: keptEnd, to: kept)
        return try RemuxJob(input: kept, output: output, options: try .init(format: format)).run(context)
    }

    /// Writes the first `length` bytes of `source` to a new file `destination`.
    private static func copy(_ source: String, prefix length: Int64, to destination: String) throws {
        try ArrivingFiles.wait(source, for: length)
        guard let reader = FileHandle(forReadingAtPath: source) else {
            throw MediaError(.ioError, "cannot open \(source)")
        }
        defer { try? reader.close() }
        guard FileManager.default.createFile(atPath: destination, contents: nil),
            let writer = FileHandle(forWritingAtPath: destination)
        else { throw MediaError(.ioError, "cannot create \(destination)") }
        defer { try? writer.close() }
        var left = length
        while left > 0 {
            let chunk: Data
            do {
                chunk = try reader.read(upToCount: Int(min(left, 4 << 20))) ?? Data()
                try writer.write(contentsOf: chunk)
            } catch {
                throw MediaError(.ioError, "cannot copy the fragments to \(destination): \(error.localizedDescription)")
            }
            guard !chunk.isEmpty else { throw MediaError(.ioError, "\(source) got shorter while it was copied") }
            left -= Int64(chunk.count)
        }
    }
}
