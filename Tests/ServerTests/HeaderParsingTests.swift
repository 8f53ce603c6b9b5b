import MediadHTTP
import Testing

/// The header grammar the service reads and writes itself: `Content-Disposition` of multipart parts and
/// downloads (RFC 6266, 7578, 8187).
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
}
