import CFFmpeg
import Foundation
import MediaCore

/// MP4-family file → elementary streams: AAC as ADTS, H.264/H.265 as Annex-B with parameter sets
/// in-band before every keyframe, and `info.json` describing the input and what went where.
///
/// Tracks with other codecs are described in `info.json` with the reason they were skipped; they are
/// not an error. Files are named `audio.aac`, `video.h264`/`video.h265`, then `audio.2.aac`, … for
/// further tracks of the same kind.
public struct DemuxJob: Sendable {
    public static let acceptedInputs: [InputContainer] = [.mp4]
    public static let infoFileName = "info.json"

    var input: String
    /// Directory the files are written to; created if missing.
    var outputDirectory: String
    var damaged: DamagedInput = .salvage

    func run(_ context: JobContext) throws -> DemuxResult {
        let source = try Self.openInput(input, damaged: damaged)
        var info = MediaInfo(describing: source)
        var kinds: [(stream: UnsafeMutablePointer<AVStream>, kind: ElementaryStreamExtractor.Kind)] = []
        for stream in source.streams {
            let index = Int(stream.pointee.index)
            if let kind = ElementaryStreamExtractor.Kind(stream: stream, skipReason: &info.tracks[index].skipped) {
                kinds.append((stream, kind))
            }
        }
        guard !kinds.isEmpty else {
            throw MediaError(.missingStream, "the input has no AAC, H.264 or H.265 track to extract")
        }
        try OutputDirectory.create(outputDirectory)

        var extractors: [Int: ElementaryStreamExtractor] = [:]
        var namesUsed: [String: Int] = [:]
        for (stream, kind) in kinds {
            let index = Int(stream.pointee.index)
            namesUsed[kind.baseName, default: 0] += 1
            let count = namesUsed[kind.baseName]!
            let name =
                count == 1
                ? "\(kind.baseName).\(kind.fileExtension)" : "\(kind.baseName).\(count).\(kind.fileExtension)"
            extractors[index] = try ElementaryStreamExtractor(
                kind: kind, stream: stream, path: outputDirectory + "/" + name)
            info.tracks[index].output = name
        }

        let packet = Packet()
        var count = 0
        var cutPackets: [Int] = []
        while try source.read(into: packet) {
            guard let extractor = extractors[packet.streamIndex] else { continue }
            count += 1
            if count % 64 == 0 {
                try context.checkpoint()
                context.reportProgress(source.progress * 0.99)
            }
            if extractor.packetCount == 0, extractor.kind == .aac, packet.skipSamplesAtStart > 0 {
                info.tracks[packet.streamIndex].primingSamples = packet.skipSamplesAtStart
            }
            // Asked before the write: a bitstream filter takes the packet's data.
            let cut = source.isCut(packet)
            do {
                try extractor.write(packet)
            } catch let error as MediaError where error.code == .invalidInput && cut {
                // A sample the end of the file cuts, which the conversion to ADTS or Annex-B cannot read.
                cutPackets.append(packet.streamIndex)
            }
        }
        if let nothing = source.nothingRead(of: Array(extractors.keys)) { throw nothing }
        var outputs: [String] = []
        var warnings =
            source.damageWarnings(streams: extractors.keys.sorted(), readToEnd: true, outputDuration: nil)
            + cutPackets.map {
                "track \($0): its last sample, which the end of the file cuts, could not be converted and was left out"
            }
        for (index, extractor) in extractors.sorted(by: { $0.key < $1.key }) {
            try extractor.finish()
            outputs.append(extractor.path)
            if let priming = info.tracks[index].primingSamples {
                warnings.append(
                    "track \(index): ADTS cannot signal the \(priming)-sample AAC encoder delay kept in the MP4's edit list; "
                        + "it is recorded as priming_samples in info.json")
            }
        }
        let infoPath = outputDirectory + "/" + Self.infoFileName
        try AtomicFile.write(try MediaJSON.encode(info), to: infoPath)
        outputs.append(infoPath)
        context.reportProgress(1)
        // info.json, an output, keeps every tag whole; the result goes into the job's record and is capped.
        return DemuxResult(outputs: outputs, warnings: warnings, info: info.reported())
    }
}
