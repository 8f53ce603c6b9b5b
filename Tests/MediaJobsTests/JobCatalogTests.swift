import Foundation
import MediaCore
import MediaJobs
import Testing

/// The catalog against the kinds it lists: names, option descriptions, validation on decode, outputs.
@Suite struct JobCatalogTests {
    @Test func listsEveryKindOnceByName() {
        #expect(
            JobCatalog.names == [
                "encode", "decode", "mux", "demux", "remux", "transcode", "package", "thumbnails", "waveform",
                "repair",
            ])
        for kind in JobCatalog.kinds {
            #expect(JobKind(rawValue: kind.rawValue) == kind)
        }
        #expect(JobKind(rawValue: "sharpen") == nil)
    }

    /// The descriptions name exactly the keys the parser reads: the parser's refusal of an unknown key
    /// lists the keys it takes.
    @Test(arguments: JobCatalog.kinds)
    func describesExactlyTheOptionsTheParserReads(kind: JobKind) throws {
        let error = try #require(throws: MediaError.self) { try kind.options(parsing: ["no_such_option": "1"]) }
        let names = kind.optionDescriptions.map(\.name).sorted()
        #expect(error.message.hasSuffix("this job takes: \(names.isEmpty ? "none" : names.joined(separator: ", "))"))
        for option in kind.optionDescriptions {
            let listsValues = option.type == .choice || option.type == .choiceList
            #expect(listsValues ? !option.allowed.isEmpty : option.allowed.isEmpty, "\(option.name)")
            if let value = option.defaultValue { _ = try kind.options(parsing: [option.name: value]) }
        }
    }

    /// Options read back from a record go through the same defaults and checks as parsed ones.
    @Test func decodingValidatesAndAppliesDefaults() throws {
        func decode(_ kind: JobKind, _ json: String) throws -> JobOptions {
            return try JSONDecoder().decode(Holder.self, from: Data(#"{"kind":"\#(kind)","options":\#(json)}"#.utf8))
                .options
        }
        #expect(try decode(.remux, #"{"format":"mkv"}"#) == kind(.remux, ["format": "mkv"]))
        #expect(try decode(.encode, "{}") == kind(.encode, [:]))
        #expect(throws: MediaError.self) { try decode(.remux, #"{"format":"mkv","faststart":true}"#) }
        #expect(throws: MediaError.self) { try decode(.remux, #"{"start":5,"end":2}"#) }
        #expect(throws: MediaError.self) { try decode(.encode, #"{"bitrate":1}"#) }
        #expect(throws: MediaError.self) { try decode(.decode, #"{"format":"wav","sample_format":"s16be"}"#) }
        #expect(throws: (any Error).self) { try decode(.mux, #"{"fps":"1000"}"#) }
        #expect(try decode(.thumbnails, "{}") == kind(.thumbnails, ["count": "1"]))
        #expect(throws: MediaError.self) { try decode(.thumbnails, #"{"times":[1],"count":2}"#) }
        #expect(throws: MediaError.self) { try decode(.waveform, #"{"bits":12}"#) }
        #expect(throws: (any Error).self) { try decode(.waveform, #"{"waveform_color":"blue"}"#) }
    }

    @Test func namesThePrimaryOutputFromTheOptions() throws {
        #expect(try JobKind.remux.primaryOutput(for: kind(.remux, ["format": "mkv"])) == "output.mkv")
        #expect(try JobKind.mux.primaryOutput(for: kind(.mux, ["format": "ts"])) == "output.ts")
        #expect(try JobKind.encode.primaryOutput(for: kind(.encode, ["format": "adts"])) == "output.aac")
        #expect(try JobKind.decode.primaryOutput(for: kind(.decode, ["format": "pcm"])) == "output.pcm")
        #expect(try JobKind.demux.primaryOutput(for: kind(.demux, [:])) == "info.json")
        #expect(try JobKind.decode.primaryOutput(for: kind(.decode, ["format": "y4m"])) == "output.y4m")
        #expect(try JobKind.thumbnails.primaryOutput(for: kind(.thumbnails, ["format": "webp"])) == "thumb_0001.webp")
        #expect(try JobKind.waveform.primaryOutput(for: kind(.waveform, [:])) == "waveform.json")
        #expect(try JobKind.repair.primaryOutput(for: kind(.repair, [:])) == "output.mp4")
        #expect(try JobKind.repair.primaryOutput(for: kind(.repair, ["format": "mov"])) == "output.mov")
    }

    @Test func takesFileOrAudioAndVideo() {
        let parts: [JobKind: [String]] = [
            .mux: ["audio", "video"], .encode: ["file", "video", "audio"], .repair: ["file", "reference"],
        ]
        for kind in JobCatalog.kinds {
            let parts = parts[kind] ?? ["file"]
            #expect(kind.inputs.map(\.name) == parts)
            #expect(kind.loneInput?.name == (kind == .mux ? nil : "file"))
        }
        #expect(JobKind.decode.inputs[0].policy.decoders == ["aac", "h264", "hevc"])
        #expect(!JobKind.waveform.inputs[0].policy.allowsDecoder("h264"))
        #expect(!JobKind.thumbnails.inputs[0].policy.allowsDecoder("aac"))
        #expect(JobKind.encode.inputs[0].storedName == "input")
        #expect(JobKind.mux.inputs[1].storedName == "video")
    }

    private func kind(_ kind: JobKind, _ values: [String: String]) throws -> JobOptions {
        try kind.options(parsing: values)
    }
}

/// A record's shape in miniature: the kind, then options decoded as that kind's.
private struct Holder: Decodable {
    let options: JobOptions

    enum CodingKeys: String, CodingKey { case kind, options }

    init(from decoder: Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(JobKind.self, forKey: .kind)
        options = try kind.decodeOptions(from: container.superDecoder(forKey: .options))
    }
}
