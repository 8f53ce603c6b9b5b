extension BitReader {
    /// An Exp-Golomb `ue(v)` field that the H.264 or H.265 standard (`codec`) limits to `maximum`, so that no
    /// later count or table size built from it can overflow; `invalid_input` naming the field beyond that.
    mutating func ue(atMost maximum: Int, _ field: String, of codec: String) throws -> Int {
        let value = try ue()
        guard value <= maximum else {
            throw MediaError(.invalidInput, "an \(codec) parameter set has \(field) = \(value) (at most \(maximum))")
        }
        return Int(value)
    }
}
