import MediaCore
import MediaJobs
import Testing

/// Numbers too large for an integer must be refused as `invalid_option`. Each of these used to trap
/// converting a Double to an Int — in the server, which validates options before it accepts a job, so
/// one request took the whole service down.
@Suite struct OptionRangeTests {
    @Test(arguments: ["1e300", "1e19k", "9.3e15M"])
    func encodeBitRateBeyondIntIsRefused(_ value: String) {
        let error = #expect(throws: MediaError.self) { try EncodeJob.Options(parsing: ["bitrate": value]) }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains("bits per second from") == true)
    }

    @Test func encodeBitRateKeepsItsUnitsAndRange() throws {
        #expect(try EncodeJob.Options(parsing: ["bitrate": "96k"]).bitrate == 96000)
        #expect(try EncodeJob.Options(parsing: ["bitrate": "0.128M"]).bitrate == 128000)
        #expect(throws: MediaError.self) { try EncodeJob.Options(parsing: ["bitrate": "7999"]) }
    }

    @Test(arguments: ["1e300", "-1e300", "1e19"])
    func frameRateBeyondIntIsRefused(_ value: String) {
        #expect(FrameRate(parsing: value) == nil)
        let error = #expect(throws: MediaError.self) { try MuxJob.Options(parsing: ["fps": value]) }
        #expect(error?.code == .invalidOption)
    }

    @Test func decimalFrameRatesStillParse() {
        #expect(FrameRate(parsing: "29.97") == FrameRate(numerator: 30000, denominator: 1001))
        #expect(FrameRate(parsing: "12.5") == FrameRate(numerator: 12500, denominator: 1000))
    }

    @Test(arguments: ["1e300", "1000000000.5"])
    func trimTimesBeyondTheLimitAreRefused(_ value: String) {
        for key in ["start", "end"] {
            let error = #expect(throws: MediaError.self) { try RemuxJob.Options(parsing: [key: value]) }
            #expect(error?.code == .invalidOption)
        }
    }
}
