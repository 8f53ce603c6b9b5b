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
    }

    /// A package's HLS playlists, DASH MPD and segments are replaced whole while it runs; the I-frame
    /// playlists are written at the end; names no package writes are nil.
    @Test func packagePublishesManifestsAndSegments() throws {
        for name in ["master.m3u8", "720p/index.m3u8", "audio_2/index.m3u8", "720p/init.mp4", "audio/init.m4a"] {
            #expect(try growth(.package, [:], name) == .replaced, "\(name)")
        }
        #expect(try growth(.package, [:], "video/seg_00001.m4s") == .replaced)
        #expect(try growth(.package, [:], "720p/seg_123456.m4s") == .replaced)
        #expect(try growth(.package, ["segment_format": "ts"], "720p/seg_00001.ts") == .replaced)
        #expect(try growth(.package, [:], "720p/iframes.m3u8") == .completedAtEnd)
        #expect(try growth(.package, ["format": "cmaf"], "manifest.mpd") == .replaced)
        #expect(try growth(.package, ["format": "cmaf"], "master.m3u8") == .replaced)
        #expect(try growth(.package, ["format": "dash"], "manifest.mpd") == .replaced)
        #expect(try growth(.package, ["format": "dash"], "240p/seg_00002.m4s") == .replaced)
        for never in [
            "manifest.mpd", "720p/seg_00001.ts", "720p/seg_00000.m4s", "720p/seg_1.m4s", "720p/seg_+0001.m4s",
            "0p/index.m3u8", "audio_0/index.m3u8", "subs/index.m3u8", "720p/x/index.m3u8", "index.m3u8",
            "ladder-intermediate.mp4",
        ] {
            #expect(try growth(.package, [:], never) == nil, "\(never)")
        }
        #expect(try growth(.package, ["format": "dash"], "master.m3u8") == nil)
        #expect(try growth(.package, ["segment_format": "ts"], "720p/init.mp4") == nil)
    }
}
