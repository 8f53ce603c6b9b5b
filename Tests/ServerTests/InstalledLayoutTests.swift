import Foundation
import TestSupport
import Testing

/// `make install` puts the binary in `<prefix>/bin` and the spec in `<prefix>/share/mediad`: an installed
/// server serves that spec without `--openapi`, wherever the source tree is.
@Suite struct InstalledLayoutTests {
    @Test func anInstalledServerServesTheInstalledSpec() throws {
        let prefix = try Scratch("prefix")
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: prefix.file("bin"), withIntermediateDirectories: true)
        try fileManager.createDirectory(atPath: prefix.file("share/mediad"), withIntermediateDirectories: true)
        try fileManager.copyItem(atPath: ServerProcess.binary, toPath: prefix.file("bin/mediad"))
        let spec = try String(contentsOf: OpenAPISpecTests.spec, encoding: .utf8) + "# the installed copy\n"
        try spec.write(toFile: prefix.file("share/mediad/openapi.yaml"), atomically: true, encoding: .utf8)

        let server = try ServerProcess(executable: prefix.file("bin/mediad"))
        defer { server.stop() }
        let reply = try Curl.run(server.url("/openapi.yaml"))
        #expect(reply.status == 200)
        #expect(reply.text.hasSuffix("# the installed copy\n"))
    }
}
