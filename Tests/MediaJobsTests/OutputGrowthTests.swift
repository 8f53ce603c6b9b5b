import MediaJobs
import Testing

/// Which outputs a job writes front to back (`OutputGrowth.appended`), readable while it runs, and which are
/// completed when it ends, by kind and options; names a kind never writes are nil.
struct OutputGrowthTests {
    private func growth(_ kind: JobKind, _ options: [String: String], _ name: String) throws -> OutputGrowth? {
        try kind.growth(ofOutput: name, options: kind.options(parsing: options))
    }

    @Test func remuxAppendsTransportStreamsAndUnindexedFragments() throws {
        #expect(try growth(.remux, ["format": "ts"], "output.ts") == .appended)
        #expect(try growth(.remux, ["fragmented": "true", "global_sidx": "false"], "output.mp4") == .appended)
        #expect(try growth(.remux, ["fragmented": "true"], "output.mp4") == .completedAtEnd)
        #expect(try growth(.remux, [:], "output.mp4") == .completedAtEnd)
        #expect(try growth(.remux, ["format": "mkv"], "output.mkv") == .completedAtEnd)
        #expect(try growth(.remux, ["format": "ts"], "output.mp4") == nil)
    }

    @Test func transcodeAppendsTransportStreamsADTSAndUnindexedFragments() throws {
        #expect(try growth(.transcode, ["format": "ts"], "output.ts") == .appended)
        #expect(try growth(.transcode, ["format": "adts"], "output.aac") == .appended)
        #expect(try growth(.transcode, ["fragmented": "true", "global_sidx": "false"], "output.mp4") == .appended)
        #expect(try growth(.transcode, ["format": "webm"], "output.webm") == .completedAtEnd)
        #expect(try growth(.transcode, ["format": "mp3"], "output.mp3") == .completedAtEnd)
    }

    @Test func decodeAppendsAllButWAV() throws {
        #expect(try growth(.decode, [:], "output.wav") == .completedAtEnd)
        #expect(try growth(.decode, [:], "output.y4m") == .appended)
        #expect(try growth(.decode, ["format": "pcm"], "output.pcm") == .appended)
        #expect(try growth(.decode, ["format": "pcm"], "output.wav") == nil)
    }

    @Test func demuxAppendsItsElementaryStreams() throws {
        #expect(try growth(.demux, [:], "info.json") == .completedAtEnd)
        #expect(try growth(.demux, [:], "audio.aac") == .appended)
        #expect(try growth(.demux, [:], "video.2.h265") == .appended)
        #expect(try growth(.demux, [:], "video.x.h264") == nil)
        #expect(try growth(.demux, [:], "notes.txt") == nil)
    }

    @Test func otherKindsCompleteTheirOutputsAtTheEnd() throws {
        #expect(try growth(.mux, ["format": "ts"], "output.ts") == .appended)
        #expect(try growth(.mux, [:], "output.mp4") == .completedAtEnd)
        #expect(try growth(.package, [:], "master.m3u8") == .completedAtEnd)
    }
}
