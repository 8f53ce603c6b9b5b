import Foundation
import MediaCore
import TestSupport
import Testing

@Suite struct ADTSReaderTests {
    /// The frames of an ADTS file, split by frame_length alone.
    static func frames(_ bytes: [UInt8]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var offset = 0
        while offset + 7 <= bytes.count {
            let length =
                (Int(bytes[offset + 3] & 3) << 11) | (Int(bytes[offset + 4]) << 3) | Int(bytes[offset + 5] >> 5)
            frames.append(Array(bytes[offset..<min(bytes.count, offset + length)]))
            offset += length
        }
        return frames
    }

    static func fixtureFrames() throws -> [[UInt8]] {
        frames([UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.adts()))))
    }

    private func readAll(_ path: String) throws -> [[UInt8]] {
        let reader = try ADTSReader(path: path)
        var payloads: [[UInt8]] = []
        while let payload = try reader.next() { payloads.append(payload) }
        return payloads
    }

    private func expectFailure(_ code: MediaError.Code, mentioning text: String? = nil, _ path: String) {
        do {
            _ = try readAll(path)
            Issue.record("expected \(code)")
        } catch let error as MediaError {
            #expect(error.code == code)
            if let text { #expect(error.message.contains(text), "\(error.message)") }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func readsEveryFramePayload() throws {
        let frames = try Self.fixtureFrames()
        let reader = try ADTSReader(path: try Fixtures.adts())
        #expect(reader.format.sampleRate == 48000)
        #expect(reader.format.channelConfiguration == 2)
        #expect(reader.format.audioSpecificConfig == [0x11, 0x90])
        let payloads = try readAll(try Fixtures.adts())
        #expect(payloads.count == (try Oracle.packets(try Fixtures.adts(), stream: "a:0")).count)
        #expect(payloads == frames.map { Array($0.dropFirst(7)) })
    }

    @Test func stripsTheCRC() throws {
        let scratch = try Scratch("adts-crc")
        var frame = try Self.fixtureFrames()[5]
        let payload = Array(frame.dropFirst(7))
        frame[1] &= 0xFE  // protection_absent = 0
        let length = frame.count + 2
        frame[3] = (frame[3] & 0xFC) | UInt8(length >> 11)
        frame[4] = UInt8((length >> 3) & 0xFF)
        frame[5] = (frame[5] & 0x1F) | UInt8((length & 7) << 5)
        let withCRC = Array(frame.prefix(7)) + [0xAB, 0xCD] + payload
        #expect(try readAll(try scratch.write("crc.aac", withCRC + withCRC)) == [payload, payload])
    }

    @Test func skipsID3TagsBeforeAndBetweenFrames() throws {
        let scratch = try Scratch("adts-id3")
        let frames = try Self.fixtureFrames()
        let tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 1, 0] + [UInt8](repeating: 0x55, count: 128)
        let path = try scratch.write("id3.aac", tag + frames[0] + frames[1] + tag + frames[2])
        #expect(try readAll(path).count == 3)
        let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        #expect(try readAll(try scratch.write("id3v1.aac", frames[0] + frames[1] + id3v1)).count == 2)
    }

    /// Several read chunks, and a tag larger than one chunk that is skipped by seeking.
    @Test func readsAcrossChunksAndSeeksOverLargeTags() throws {
        let scratch = try Scratch("adts-large")
        let frames = try Self.fixtureFrames()
        let size = 100_000
        let sizeBytes = (0..<4).reversed().map { UInt8((size >> (7 * $0)) & 0x7F) }
        let tag = Array("ID3".utf8) + [4, 0, 0] + sizeBytes + [UInt8](repeating: 0xFF, count: size)
        let stream = Array(repeating: frames.flatMap { $0 }, count: 4).flatMap { $0 }
        let payloads = try readAll(try scratch.write("large.aac", stream + tag + stream))
        #expect(payloads == Array(repeating: frames.map { Array($0.dropFirst(7)) }, count: 8).flatMap { $0 })
    }

    @Test func rejectsGarbageBetweenFramesWithItsOffset() throws {
        let scratch = try Scratch("adts-garbage")
        let frames = try Self.fixtureFrames()
        let offset = frames[0].count + frames[1].count
        let bytes = frames[0] + frames[1] + [0x12, 0x34, 0x56] + frames[2]
        expectFailure(.invalidInput, mentioning: "byte \(offset)", try scratch.write("garbage.aac", bytes))
    }

    @Test func reportsACutShortFinalFrame() throws {
        let scratch = try Scratch("adts-truncated")
        let frames = try Self.fixtureFrames()
        expectFailure(.truncatedInput, try scratch.write("cut.aac", frames[0] + frames[1] + frames[2].prefix(20)))
        expectFailure(.truncatedInput, try scratch.write("cut-header.aac", frames[0] + frames[1].prefix(4)))
    }

    @Test func rejectsProgramConfigElementsAndMultipleBlocks() throws {
        let scratch = try Scratch("adts-unsupported")
        var frame = try Self.fixtureFrames()[0]
        frame[2] &= 0xFE
        frame[3] &= 0x3F  // channel_configuration = 0
        expectFailure(.unsupportedCodec, mentioning: "channel configuration 0", try scratch.write("pce.aac", frame))
        var blocks = try Self.fixtureFrames()[0]
        blocks[6] |= 0x01  // number_of_raw_data_blocks_in_frame = 1 (two blocks)
        expectFailure(.unsupportedCodec, mentioning: "raw data blocks", try scratch.write("blocks.aac", blocks))
    }

    @Test func rejectsAFormatChangeMidStream() throws {
        let scratch = try Scratch("adts-change")
        let frames = try Self.fixtureFrames()
        var other = frames[1]
        other[2] = (other[2] & 0xC3) | (4 << 2)  // 44.1 kHz instead of 48 kHz
        expectFailure(
            .invalidInput, mentioning: "sampling frequency", try scratch.write("change.aac", frames[0] + other))
    }

    @Test func needsAtLeastOneFrame() throws {
        let scratch = try Scratch("adts-empty")
        #expect(throws: MediaError(.emptyInput, "the ADTS input is empty")) {
            try ADTSReader(path: try scratch.write("empty.aac", []))
        }
        let tagOnly: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 2, 0, 0]
        #expect(throws: MediaError.self) { try ADTSReader(path: try scratch.write("tag.aac", tagOnly)) }
    }
}
