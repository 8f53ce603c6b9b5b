import MediadHTTP
import NIOHTTP1
import Testing

/// The header grammar the service reads and writes itself: `Content-Disposition` of multipart parts and
/// downloads (RFC 6266, 7578, 8187), entity tags and the conditional fields (RFC 9110 §8.8.3, §13), `Date`.
@Suite struct HeaderParsingTests {
    /// Part headers as clients and attackers write them, and the name and file name they must give.
    static let dispositions: [(header: String, name: String?, filename: String?)] = [
        (#"form-data; name="file"; filename="talk; final.mov""#, "file", "talk; final.mov"),
        (#"form-data; name="file"; filename="a \"quoted\" name.mp4""#, "file", #"a "quoted" name.mp4"#),
        (#"form-data; name="file"; filename="back\\slash.mp4""#, "file", #"back\slash.mp4"#),
        (#"form-data; name="file"; filename="x=1; y=2.mp4"; size=3"#, "file", "x=1; y=2.mp4"),
        (#"form-data;name=file;filename=plain.mp4"#, "file", "plain.mp4"),
        (#"FORM-DATA; NAME="file"; FileName = "spaced.mp4" "#, "file", "spaced.mp4"),
        (
            #"form-data; name="file"; filename*=UTF-8''na%C3%AFve%20talk.mp4; filename="naive talk.mp4""#, "file",
            "naïve talk.mp4"
        ),
        (#"form-data; name="file"; filename="naive.mp4"; filename*=utf-8'fr'na%C3%AFve.mp4"#, "file", "naïve.mp4"),
        (#"form-data; name="file"; filename*=ISO-8859-1''caf%E9.mp4"#, "file", "café.mp4"),
        (#"form-data; name="file"; filename*=UTF-8''bad%ZZ.mp4; filename="fallback.mp4""#, "file", "fallback.mp4"),
        (#"form-data; name="file"; filename*=UTF-8''%FF%FE.mp4; filename="fallback.mp4""#, "file", "fallback.mp4"),
        (#"form-data; name="file"; filename*=KOI8-R''%C1.mp4; filename="fallback.mp4""#, "file", "fallback.mp4"),
        (#"form-data; name="file"; filename*=UTF-8''raw space.mp4"#, "file", nil),
        (#"form-data; name="file"; filename="unterminated.mp4"#, "file", nil),
        (#"form-data; name="file"; filename="""#, "file", ""),
        (#"form-data; name="file"; filename"#, "file", nil),
        (#"form-data; name="file"; ="orphan.mp4""#, "file", nil),
        (#"form-data; name="fi;le"; filename="x.mp4"trailing; other="y""#, "fi;le", "x.mp4"),
        (#"form-data; name="file"; filename="日本語.mp4""#, "file", "日本語.mp4"),
        ("form-data", nil, nil),
        ("", nil, nil),
    ]

    @Test(arguments: dispositions)
    func readsMultipartDispositions(_ header: String, _ name: String?, _ filename: String?) throws {
        let disposition = try ContentDisposition(header)
        #expect(disposition.name == name, "\(header)")
        #expect(disposition.filename == filename, "\(header)")
    }

    /// A parameter given twice is refused: something in front may have read the other value.
    @Test(arguments: [
        #"form-data; name="file"; name="evil"; filename="x.mp4""#,
        #"form-data; name="file"; filename="a.mp4"; FILENAME="b.mp4""#,
    ])
    func refusesRepeatedParameters(_ header: String) {
        #expect(throws: ServiceError.self) { try ContentDisposition(header) }
    }

    @Test func writesDownloadNamesWithAnASCIIFallback() throws {
        #expect(ContentDisposition.attachment(filename: "talk.mkv") == #"attachment; filename="talk.mkv""#)
        #expect(
            ContentDisposition.attachment(filename: "naïve café.mkv")
                == #"attachment; filename="naive cafe.mkv"; filename*=UTF-8''na%C3%AFve%20caf%C3%A9.mkv"#)
        #expect(
            ContentDisposition.attachment(filename: "日本.mkv")
                == #"attachment; filename="__.mkv"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.mkv"#)
        #expect(
            ContentDisposition.attachment(filename: #"50% "off".mkv"#)
                == #"attachment; filename="50_ _off_.mkv"; filename*=UTF-8''50%25%20%22off%22.mkv"#)
        // What the server writes, the parser reads back.
        for name in ["naïve café.mkv", "日本.mkv", "talk; final.mkv", #"a\b"c.mkv"#] {
            let header = ContentDisposition.attachment(filename: name)
            #expect(try ContentDisposition(header).filename == name, "\(header)")
        }
    }

    @Test func parsesEntityTagLists() {
        let tag = EntityTag("abc")
        #expect(EntityTagCondition(["*"]) == .any)
        #expect(EntityTagCondition([]) == nil)
        #expect(EntityTagCondition([#"W/"abc""#]) == .tags([EntityTag("abc", weak: true)]))
        #expect(
            EntityTagCondition([#""x", W/"abc" ,"a,b""#, #""y""#])
                == .tags([EntityTag("x"), EntityTag("abc", weak: true), EntityTag("a,b"), EntityTag("y")]))
        #expect(EntityTagCondition(["abc, *"]) == .tags([]))
        #expect(EntityTag("abc", weak: true).matchesWeakly(tag))
        #expect(!EntityTag("abc", weak: true).matchesStrongly(tag))
        #expect(tag.matchesStrongly(EntityTag("abc")))
    }

    @Test func evaluatesConditionsInTheRFCOrder() throws {
        let current = EntityTag("abc")
        func outcome(_ fields: [(String, String)], _ method: HTTPMethod = .GET, exists: Bool = true) throws
            -> Preconditions.Outcome
        {
            try Preconditions(HTTPHeaders(fields)).evaluate(method, current: exists ? current : nil, exists: exists)
        }
        #expect(try outcome([]) == .proceed)
        #expect(try outcome([("If-None-Match", #"W/"abc""#)]) == .notModified)
        #expect(try outcome([("If-None-Match", #""other", "abc""#)]) == .notModified)
        #expect(try outcome([("If-None-Match", #""other""#)]) == .proceed)
        #expect(try outcome([("If-Match", #""abc""#)]) == .proceed)
        #expect(try outcome([("If-Match", "*")]) == .proceed)
        #expect(throws: ServiceError.self) { try outcome([("If-Match", #"W/"abc""#)]) }
        #expect(throws: ServiceError.self) { try outcome([("If-Match", #""other""#)]) }
        #expect(throws: ServiceError.self) { try outcome([("If-Match", "*")], .PUT, exists: false) }
        #expect(throws: ServiceError.self) { try outcome([("If-None-Match", "*")], .DELETE) }
        #expect(try outcome([("If-None-Match", "*")], .PUT, exists: false) == .proceed)
        // If-Match is evaluated first: a failing If-Match is 412 even when If-None-Match would be 304.
        #expect(throws: ServiceError.self) { try outcome([("If-Match", #""x""#), ("If-None-Match", #""abc""#)]) }
        let ranges = { (value: String) in
            Preconditions(HTTPHeaders([("If-Range", value)])).rangeApplies(current: current)
        }
        #expect(ranges(#""abc""#))
        #expect(!ranges(#"W/"abc""#))
        #expect(!ranges(#""other""#))
        #expect(!ranges("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(Preconditions(HTTPHeaders()).rangeApplies(current: current))
    }

    @Test func formatsIMFFixdates() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_709_251_199) == "Thu, 29 Feb 2024 23:59:59 GMT")
    }
}
