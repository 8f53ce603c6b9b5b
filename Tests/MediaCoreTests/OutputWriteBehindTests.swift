import Testing

@testable import MediaCore

/// Which outputs keep their pages while they are written: those whose trailer reads the whole file back.
@Suite struct OutputWriteBehindTests {
    @Test func onlyAMovieMovedToTheFrontOrAGlobalIndexKeepsItsPages() {
        #expect(OutputFile.readsBackWhole(options: ["movflags": "+faststart"]))
        #expect(OutputFile.readsBackWhole(options: ["movflags": "+empty_moov+default_base_moof+global_sidx"]))
        #expect(!OutputFile.readsBackWhole(options: ["moov_size": "81920"]))
        #expect(!OutputFile.readsBackWhole(options: ["movflags": "+faststart", "moov_size": "81920"]))
        #expect(!OutputFile.readsBackWhole(options: ["movflags": "+frag_keyframe+empty_moov"]))
        #expect(!OutputFile.readsBackWhole(options: [:]))
    }
}
