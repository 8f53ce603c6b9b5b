import Foundation
import TestSupport
import Testing

/// Every relative link of README.md, CHANGELOG.md and docs/*.md leads to a file that is there, and every
/// `#anchor` to a heading of its target, so moving or renaming a section cannot leave a dead link behind.
@Suite struct DocumentationLinkTests {
    @Test func everyLinkOfTheDocumentsLeadsSomewhere() throws {
        let documents = try DocumentationLinks.documents(under: DocumentationLinks.root)
        #expect(documents.contains("docs/api.md") && documents.contains("docs/operations.md"), "\(documents)")
        let links = try documents.flatMap { document in
            DocumentationLinks.links(
                in: try String(
                    contentsOf: DocumentationLinks.root.appendingPathComponent(document), encoding: .utf8),
                of: document)
        }
        // The README links into docs/ by section, so a check that found no anchors would prove nothing.
        #expect(links.filter { $0.target.contains("#") }.count >= 20, "\(links)")
        let broken = try DocumentationLinks.broken(under: DocumentationLinks.root)
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    /// The checker itself, on documents with a missing file, a missing heading and a link in code.
    @Test func aMissingFileOrHeadingIsFoundAndCodeIsNotALink() throws {
        let scratch = try Scratch("doc-links")
        let root = URL(fileURLWithPath: scratch.path)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("docs"), withIntermediateDirectories: true)
        let readme = """
            # Project

            See [the API](docs/api.md#resumable-uploads-tus), [gone](docs/gone.md) and
            [a heading that moved](docs/api.md#configuration). `[not a link](nowhere.md)`

            ```sh
            echo "[nor this](nowhere.md)"
            ```
            """
        let api = """
            # API

            ## Resumable uploads (tus)

            [Back](../README.md#project), [out](https://example.com/x), [here](#api).
            """
        try Data(readme.utf8).write(to: root.appendingPathComponent("README.md"))
        try Data("# Changelog\n".utf8).write(to: root.appendingPathComponent("CHANGELOG.md"))
        try Data(api.utf8).write(to: root.appendingPathComponent("docs/api.md"))
        let broken = try DocumentationLinks.broken(under: root)
        #expect(broken.count == 2, "\(broken)")
        #expect(broken.first?.hasPrefix("README.md:3: (docs/gone.md): no file") == true, "\(broken)")
        #expect(
            broken.last == "README.md:4: (docs/api.md#configuration): no heading makes #configuration in api.md",
            "\(broken)")
    }

    /// GitHub's anchors: lowercase, spaces to `-`, punctuation dropped, a repeated heading numbered.
    @Test func headingsMakeGitHubsAnchors() {
        #expect(DocumentationLinks.slug("Resumable uploads (tus)") == "resumable-uploads-tus")
        #expect(DocumentationLinks.slug("`mediad submit`") == "mediad-submit")
        #expect(DocumentationLinks.slug("Measured: probe") == "measured-probe")
        #expect(DocumentationLinks.slug("The run_id and --max-upload") == "the-run_id-and---max-upload")
        let anchors = DocumentationLinks.anchors(in: "# Tests\n\n```sh\n# not a heading\n```\n## Tests\n#nope\n")
        #expect(anchors == ["tests", "tests-1"])
    }
}
