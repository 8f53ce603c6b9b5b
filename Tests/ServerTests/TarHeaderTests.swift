import Foundation
@testable import MediadHTTP
import Testing
import TestSupport

/// `TarHeader` read back by Python's tarfile and GNU tar: short names, names split into ustar's prefix and
/// name, and names only a PAX header can hold.
@Suite struct TarHeaderTests {
    @Test func longNamesSurviveInUstarPrefixesAndPAXHeaders() throws {
        let files = [
            ("master.m3u8", Array("#EXTM3U\n".utf8)),
            (String(repeating: "folder/", count: 20) + "seg_00001.m4s", [UInt8](repeating: 7, count: 513)),
            (String(repeating: "p", count: 100) + "/" + String(repeating: "q", count: 100) + "/x", []),
        ]
        var archive: [UInt8] = []
        for (name, bytes) in files {
            archive += TarHeader(name: name, size: Int64(bytes.count), modified: 1_700_000_000).blocks + bytes
            archive += [UInt8](repeating: 0, count: TarHeader.padding(after: Int64(bytes.count)))
        }
        archive += TarHeader.end
        #expect(archive.count % 512 == 0)
        let scratch = try Scratch("tar")
        let path = try scratch.write("names.tar", archive)
        let read = try Command.run(
            "python3",
            [
                "-c",
                "import json, sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n print(json.dumps([[m.name, m.size, list(t.extractfile(m).read()[:2])] for m in t.getmembers()]))",
                path,
            ])
        let members = try JSONSerialization.jsonObject(with: read.stdout) as? [[Any]] ?? []
        #expect(members.map { $0[0] as? String } == files.map(\.0))
        #expect(members.map { $0[1] as? Int } == files.map { $0.1.count })
        #expect(members[1][2] as? [Int] == [7, 7])
        let listed = try Command.run("tar", ["-tvf", path]).text
        #expect(listed.split(separator: "\n").count == 3)
    }
}
