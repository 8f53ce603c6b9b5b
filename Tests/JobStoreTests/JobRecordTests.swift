import Foundation
import JobStore
import MediaJobs
import Testing

@Suite struct JobRecordTests {
    static let sample = JobRecord(
        id: "AAAAAAAAAAAAAAAAAAAAAA", createdAt: Date(timeIntervalSince1970: 1_795_000_000.25),
        options: StoreFixtures.options(for: .remux),
        inputs: [JobInput(name: "input", size: 10, sha256: String(repeating: "a", count: 64))])

    @Test func alwaysShowsNullableFields() throws {
        let json = String(decoding: try JobJSON.encoder().encode(Self.sample), as: UTF8.self)
        #expect(json.contains("\"error\":null"))
        #expect(json.contains("\"started_at\":null"))
        #expect(json.contains("\"finished_at\":null"))
        #expect(json.contains("\"created_at\":\"2026-11-18T"))
        #expect(json.contains(".250Z\""))
        #expect(
            json.contains(
                "\"options\":{\"damaged\":\"salvage\",\"faststart\":false,\"format\":\"mkv\",\"fragmented\":false,\"tracks\":\"all\"}"
            ))
    }

    @Test func roundTripsThroughJSON() throws {
        var record = Self.sample
        record.state = .failed
        record.error = JobError(code: "invalid_input", message: "bad")
        let result = #"{"cut_start":1.5,"muxer":"matroska","outputs":["output.mkv"],"tracks":[],"warnings":[]}"#
        record.result = JobResultValue(
            try JSONDecoder().decode(RemuxResult.self, from: Data(result.utf8)), kind: .remux)
        let data = try JobJSON.encoder().encode(record)
        #expect(try JobJSON.decoder().decode(JobRecord.self, from: data) == record)
    }

    @Test func callbacksAreOptionalAndRoundTrip() throws {
        let plain = String(decoding: try JobJSON.encoder().encode(Self.sample), as: UTF8.self)
        #expect(!plain.contains("callback_url"))
        #expect(!plain.contains("notifications"))
        #expect(try JobJSON.decoder().decode(JobRecord.self, from: Data(plain.utf8)) == Self.sample)

        var record = Self.sample
        record.callbackURL = "http://hooks.example.com/mediad"
        record.notifications = [
            NotificationAttempt(
                at: Date(timeIntervalSince1970: 1_795_000_100), status: 500, error: "the receiver answered 500"),
            NotificationAttempt(at: Date(timeIntervalSince1970: 1_795_000_101), status: nil, error: "timed out"),
            NotificationAttempt(at: Date(timeIntervalSince1970: 1_795_000_105), status: 204, error: nil),
        ]
        let data = try JobJSON.encoder().encode(record)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains("\"callback_url\":\"http://hooks.example.com/mediad\""))
        #expect(json.contains("{\"at\":\"2026-11-18T11:08:25.000Z\",\"error\":null,\"status\":204}"))
        #expect(json.contains("\"status\":null"))
        #expect(try JobJSON.decoder().decode(JobRecord.self, from: data) == record)
        #expect(record.notifications?.map(\.delivered) == [false, false, true])
    }

    /// Deliveries and input sources always show their unset fields as null, and read a record that left
    /// them out as nil.
    @Test func deliveriesAndSourcesShowNullsAndReadMissingKeys() throws {
        let delivery = String(
            decoding: try JobJSON.encoder().encode(OutputDelivery(name: "output.mp4", url: "https://cdn.example/a")),
            as: UTF8.self)
        #expect(
            delivery
                == #"{"attempts":0,"error":null,"etag":null,"name":"output.mp4","state":"pending","status":null,"url":"https://cdn.example/a"}"#
        )
        let source = String(
            decoding: try JobJSON.encoder().encode(InputSource(name: "file", url: "https://cdn.example/b")),
            as: UTF8.self)
        #expect(source == #"{"name":"file","state":"pending","status":null,"url":"https://cdn.example/b"}"#)

        let sparse = #"{"attempts":2,"name":"output.mp4","state":"failed","url":"https://cdn.example/a"}"#
        let read = try JobJSON.decoder().decode(OutputDelivery.self, from: Data(sparse.utf8))
        #expect(read.status == nil && read.etag == nil && read.error == nil && read.attempts == 2)
        let sourceRead = try JobJSON.decoder().decode(
            InputSource.self, from: Data(#"{"name":"file","state":"fetched","url":"u","status":200}"#.utf8))
        #expect(sourceRead.status == 200 && sourceRead.state == .fetched)
    }

    /// The hand-written formatter gives what `ISO8601DateFormatter` gives, rounding of half
    /// milliseconds and padding included.
    @Test(arguments: [
        0, 1.9995, 59.9996, 1_795_000_000.0005, 1_795_000_000.25, 1_698_541_453.284897, 1_870_461_785.928547,
        4_102_444_799.9999,
    ])
    func formatsTimesAsISO8601DateFormatterDoes(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(JobJSON.rfc3339(date) == formatter.string(from: date))
    }

    @Test func knowsTerminalStates() {
        #expect(JobState.allCases.filter(\.isTerminal) == [.succeeded, .failed, .cancelled])
    }
}
