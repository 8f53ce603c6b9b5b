import Foundation
import MediaCore
import Testing

@testable import MediadRuntime

/// Reading workers' messages and capping what mediad reports of a file's metadata, without a server.
@Suite struct WorkerMessageReaderTests {
    @Test func linesCutAcrossReadsAndSharingAReadAreEachParsedOnce() {
        let lines = (1...3).map { WorkerMessage(progress: Double($0) / 4).line() }
        let stream = lines.reduce(Data(), +)
        for chunkSize in [1, 7, stream.count] {
            var reader = WorkerMessageReader()
            var seen: [Double] = []
            var offset = 0
            while offset < stream.count {
                let chunk = stream.subdata(in: offset..<min(offset + chunkSize, stream.count))
                reader.consume(chunk) { seen.append($0.progress ?? -1) }
                offset += chunkSize
            }
            #expect(seen == [0.25, 0.5, 0.75], "chunks of \(chunkSize)")
            #expect(!reader.refusedLine)
        }
    }

    /// A line over the limit is dropped as it arrives (never buffered whole) and the lines after it
    /// still count.
    @Test func aLineOverTheLimitIsDroppedAndReported() {
        var reader = WorkerMessageReader(maximumLineBytes: 1024)
        var seen: [WorkerMessage] = []
        let long =
            Data(#"{"progress":0.5,"pad":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 4096)
            + Data("\"}\n".utf8)
        for start in stride(from: 0, to: long.count, by: 100) {
            reader.consume(long.subdata(in: start..<min(start + 100, long.count))) { seen.append($0) }
        }
        reader.consume(WorkerMessage(progress: 1).line()) { seen.append($0) }
        #expect(reader.refusedLine)
        #expect(seen == [WorkerMessage(progress: 1)])
    }

    @Test func tagsAreCutByBytesNeverInsideACharacter() {
        #expect(MetadataCaps.truncate("short", to: 8) == "short")
        #expect(MetadataCaps.truncate("ééééé", to: 5) == "éé…[truncated, 10 bytes]")
        let caps = MetadataCaps(valueBytes: 4, keyBytes: 3, tagCount: 2)
        let capped = caps.cap(["a": "12345", "b": "1", "longname": "x"])
        #expect(capped == ["a": "1234…[truncated, 5 bytes]", "b": "1", "…": "[omitted, 1 more tags]"])
    }
}
