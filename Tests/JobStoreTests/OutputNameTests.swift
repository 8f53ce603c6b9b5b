import JobStore
import Testing

/// Output names may be paths in folders (a streaming package's `720p/seg_00001.m4s`), and nothing more:
/// none may leave the job's `outputs/` directory or hide as a temporary file.
@Suite struct OutputNameTests {
    @Test(arguments: [
        "master.m3u8", "output.mp4", "720p/index.m3u8", "720p/init.mp4", "audio_1/seg_00001.m4s",
        "a/b/c/d/e/f/g/h/i.ts",
    ])
    func acceptsFilesAndFolders(_ name: String) {
        #expect(JobStore.isValidOutputName(name))
    }

    @Test(arguments: [
        "", "..", ".", "../job.json", "720p/../../job.json", "720p/..", "./master.m3u8", "/etc/passwd", "720p/",
        "720p//seg.m4s", "a\\b", "a\u{0}b", ".hidden", "720p/.seg.m4s.partial-1-2", "720p\\..\\job.json",
        "caf\u{e9}.mp4", "a b.mp4", "a/b/c/d/e/f/g/h/i/j.ts", String(repeating: "a", count: 101),
        Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: "/"),
    ])
    func refusesNamesThatLeaveTheJobOrHide(_ name: String) {
        #expect(!JobStore.isValidOutputName(name))
    }
}
