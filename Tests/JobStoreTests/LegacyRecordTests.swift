import Foundation
import JobStore
import MediaJobs
import Testing

/// Records as the version before typed records wrote them (options and result through an untyped JSON
/// value, results with snake_case keys; outputs here with today's `content_type`) load, and encode back to
/// the same bytes but for the defaults of options added since (`damaged`, whose default is salvage).
@Suite struct LegacyRecordTests {
    static let head =
        #"{"attempts":1,"created_at":"2026-11-18T11:06:40.000Z","error":null,"finished_at":"2026-11-18T11:06:42.500Z","id":"AAAAAAAAAAAAAAAAAAAAAA","#
    static let input = #""inputs":[{"name":"input","sha256":"ab","size":10}],"#
    static let tail = #""started_at":"2026-11-18T11:06:41.000Z","state":"succeeded","warnings":[]}"#

    static let records = [
        head + input + #""kind":"remux","options":{"end":20,"faststart":false,"format":"mkv","fragmented":false,"#
            + #""start":10,"tracks":"all"},"outputs":[{"content_type":"video/x-matroska","name":"output.mkv","#
            + #""sha256":"cd","size":5,"url":"/jobs/AAAAAAAAAAAAAAAAAAAAAA/outputs/output.mkv"}],"progress":1,"#
            + #""result":{"cut_end":20.02,"cut_start":9.5,"muxer":"matroska","outputs":["output.mkv"],"#
            + #""tracks":[{"codec":"aac","input_index":1,"kind":"audio","output_index":0,"packets":431}],"#
            + #""warnings":[]},"# + tail,
        head + input + #""kind":"encode","options":{"bitrate":96000,"format":"m4a","sample_rate":48000},"#
            + #""outputs":[],"progress":1,"result":{"bitrate":96000,"channels":2,"duration":2,"frames":95,"#
            + #""input_sample_format":"s16le","outputs":["output.m4a"],"sample_rate":48000,"samples":96000,"#
            + #""warnings":["ADTS cannot record encoder priming"]},"# + tail,
        head + #""inputs":[{"name":"video","sha256":"ab","size":10}],"kind":"mux","options":{"format":"mp4","#
            + #""fps":"30000/1001"},"outputs":[],"progress":1,"result":{"audio_frames":0,"duration_seconds":1.5,"#
            + #""format":"mp4","outputs":["output.mp4"],"video_codec":"h264","video_frames":45,"warnings":[]},"# + tail,
        head + input + #""kind":"decode","options":{"format":"pcm","sample_format":"f32le"},"outputs":[],"#
            + #""progress":1,"result":{"channels":1,"duration":0.5,"outputs":["output.pcm"],"sample_format":"f32le","#
            + #""sample_rate":8000,"samples":4000,"warnings":[]},"# + tail,
        head + input + #""kind":"demux","options":{},"outputs":[],"progress":1,"result":{"info":{"#
            + #""bit_rate":1000,"#
            + #""container":"mp4","duration":1.5,"format_name":"mov,mp4,m4a,3gp,3g2,mj2","major_brand":"isom","#
            + #""size":2000,"tags":{"ENCODER":"Lavf59"},"tracks":[{"channel_layout":"mono","channels":1,"codec":"aac","#
            + #""index":0,"kind":"audio","output":"audio.aac","priming_samples":1024,"sample_rate":8000}]},"#
            + #""outputs":["audio.aac","info.json"],"warnings":[]},"# + tail,
    ]

    @Test(arguments: records)
    func loadsAndEncodesBackToTheSameBytes(json: String) throws {
        let record = try JobJSON.decoder().decode(JobRecord.self, from: Data(json.utf8))
        #expect(record.result?.kind == record.kind)
        #expect(String(decoding: try JobJSON.encoder().encode(record), as: UTF8.self) == Self.current(json))
    }

    /// `legacy` as written today: the kinds that read damaged files state `damaged`, first of the sorted keys.
    static func current(_ legacy: String) -> String {
        let kinds = [#""kind":"remux""#, #""kind":"demux""#, #""kind":"decode""#]
        guard kinds.contains(where: legacy.contains) else { return legacy }
        if legacy.contains(#""options":{}"#) {
            return legacy.replacingOccurrences(of: #""options":{}"#, with: #""options":{"damaged":"salvage"}"#)
        }
        return legacy.replacingOccurrences(of: #""options":{""#, with: #""options":{"damaged":"salvage",""#)
    }

    /// Outputs written before they were snake_case (`contentType`) load and are written back with
    /// `content_type`, the key openapi.yaml gives.
    @Test func readsTheCamelCaseContentTypeOfOlderRecords() throws {
        let current = Self.current(Self.records[0])
        let legacy = Self.records[0].replacingOccurrences(of: #""content_type":"#, with: #""contentType":"#)
        #expect(legacy != current)
        let record = try JobJSON.decoder().decode(JobRecord.self, from: Data(legacy.utf8))
        #expect(record.outputs.first?.contentType == "video/x-matroska")
        #expect(String(decoding: try JobJSON.encoder().encode(record), as: UTF8.self) == current)
    }

    /// A record whose options no longer pass the kind's checks (edited by hand) does not load.
    @Test func refusesOptionsTheKindRejects() {
        let json = Self.records[0].replacingOccurrences(of: #""faststart":false"#, with: #""faststart":true"#)
        #expect(throws: (any Error).self) { try JobJSON.decoder().decode(JobRecord.self, from: Data(json.utf8)) }
    }
}
