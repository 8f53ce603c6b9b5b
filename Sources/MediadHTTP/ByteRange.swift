import NIOHTTP1

/// A single `Range: bytes=…` request resolved against a file size (end exclusive), by RFC 9110 §14.1.2.
///
/// Positions are digits only and saturate at `Int64.max` instead of overflowing, so a range past any file
/// (`bytes=0-9223372036854775807`, or a position of 40 digits) is a range like any other: a last position
/// beyond the end means "to the end", a first position beyond it is 416. A header that is not one valid
/// `bytes` range (several ranges, another unit, signs, spaces) is ignored and the whole file is sent, as
/// the RFC allows.
package struct ByteRange: Sendable {
    package let start: Int64
    package let end: Int64

    /// nil when there is no usable range header (serve the whole file); throws 416 when it cannot be met.
    package init?(_ header: String?, size: Int64) throws {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "bytes=" else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let unsatisfiable = ServiceError(
            .rangeNotSatisfiable, "range_not_satisfiable", "the range \(header) is outside the \(size)-byte file",
            headers: [("Content-Range", "bytes */\(size)")])
        if spec[0].isEmpty {
            guard let suffix = Self.position(spec[1]) else { return nil }
            guard suffix > 0, size > 0 else { throw unsatisfiable }
            start = size - min(suffix, size)
            end = size
        } else {
            guard let first = Self.position(spec[0]) else { return nil }
            let last = spec[1].isEmpty ? Int64.max : Self.position(spec[1])
            guard let last, last >= first else { return nil }
            guard first < size else { throw unsatisfiable }
            start = first
            end = last >= size - 1 ? size : last + 1
        }
    }

    /// A position of a range spec: ASCII digits only, saturated at `Int64.max`; nil when not a number.
    static func position(_ text: Substring) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflowShift || overflowAdd { return Int64.max }
            value = sum
        }
        return value
    }
}
