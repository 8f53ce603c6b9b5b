/// A parameter set that a later NAL unit names by its id.
protocol ParameterSet: Sendable {
    var id: Int { get }
}

/// A picture parameter set, which names the sequence parameter set it builds on.
protocol PictureParameterSet: ParameterSet {
    var spsID: Int { get }
}

/// The sequence and picture parameter sets an H.264 or H.265 stream has sent so far, by id, and the lookup
/// that resolves a slice header's `pic_parameter_set_id` through them; a later set replaces one of its id.
struct ParameterSetTable<SPS: ParameterSet, PPS: PictureParameterSet>: Sendable {
    /// `H.264` or `H.265`, for the messages.
    let codec: String
    private var sequenceSets: [Int: SPS] = [:]
    private var pictureSets: [Int: PPS] = [:]

    init(codec: String) { self.codec = codec }

    mutating func add(sequenceSet: SPS) { sequenceSets[sequenceSet.id] = sequenceSet }

    mutating func add(pictureSet: PPS) { pictureSets[pictureSet.id] = pictureSet }

    /// The picture parameter set `ppsID` and the sequence parameter set it names; `missing_parameter_sets`
    /// when the stream has not sent either.
    func sets(forPPS ppsID: Int) throws -> (PPS, SPS) {
        guard let pps = pictureSets[ppsID] else {
            throw MediaError(
                .missingParameterSets, "an \(codec) slice refers to picture parameter set \(ppsID), which was not sent")
        }
        guard let sps = sequenceSets[pps.spsID] else {
            throw MediaError(
                .missingParameterSets,
                "an \(codec) slice refers to sequence parameter set \(pps.spsID), which was not sent")
        }
        return (pps, sps)
    }

    /// Parses a slice header that looks its `pic_parameter_set_id` up through `sets(forPPS:)`, and returns it
    /// with the sequence parameter set it activated, which the picture order count goes on to read.
    func parseSlice<Header>(
        _ parse: (_ lookup: (_ ppsID: Int) throws -> (PPS, SPS)) throws -> Header
    ) throws -> (Header, SPS) {
        var active: SPS? = nil
        let header = try parse { ppsID in
            let (pps, sps) = try sets(forPPS: ppsID)
            active = sps
            return (pps, sps)
        }
        guard let active else { throw MediaError(.internalError, "slice parsed without an SPS") }
        return (header, active)
    }
}
