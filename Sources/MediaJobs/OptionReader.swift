import MediaCore

/// Reads job options from string pairs (query parameters, form fields, CLI flags) with one set of rules,
/// so every front end accepts and rejects exactly the same values.
///
/// Each accessor removes the key it reads; `finish()` rejects whatever is left as unknown.
public struct OptionReader {
    private var values: [String: String]
    private var known: [String] = []

    public init(_ values: [String: String]) { self.values = values }

    /// Reads `key` as one of `allowed` (case-sensitive), or nil when absent.
    public mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, as type: T.Type) throws -> T?
    where T.RawValue == String {
        guard let raw = take(key) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw invalid(key, raw, "expected one of: \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// Reads `key` as it was written, or nil when absent; the caller checks it (e.g. a codec level,
    /// whose allowed values depend on another option).
    public mutating func string(_ key: String) -> String? { take(key) }

    /// Reads `key` as an integer in `range`, or nil when absent.
    public mutating func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let raw = take(key) else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw invalid(key, raw, "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The largest number of seconds an option takes: about 31 years. Any time in a 32-bit time base
    /// (ticks = seconds × den / num) then fits in an Int64, so no conversion of it can trap.
    public static let maximumSeconds: Double = 1_000_000_000

    /// Reads `key` as a number of seconds from 0 to `maximumSeconds`, or nil when absent.
    public mutating func seconds(_ key: String) throws -> Double? {
        guard let raw = take(key) else { return nil }
        guard let value = Double(raw), value.isFinite, value >= 0, value <= Self.maximumSeconds else {
            throw invalid(key, raw, "expected a number of seconds from 0 to \(Int(Self.maximumSeconds)), e.g. 12.5")
        }
        return value
    }

    /// Reads `key` as a boolean (`true/false/1/0/yes/no`), or nil when absent.
    public mutating func boolean(_ key: String) throws -> Bool? {
        guard let raw = take(key) else { return nil }
        switch raw.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw invalid(key, raw, "expected true or false")
        }
    }

    /// Reads `key` as a bit rate such as `96000`, `96k` or `0.128M`, in bits per second within `range`.
    public mutating func bitRate(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let raw = take(key) else { return nil }
        let lower = raw.lowercased()
        let (digits, scale): (Substring, Double) =
            lower.hasSuffix("k")
            ? (lower.dropLast(), 1000) : lower.hasSuffix("m") ? (lower.dropLast(), 1_000_000) : (Substring(lower), 1)
        // `Int(exactly:)`, not `Int(_:)`: a value such as 1e300 must be refused, not trap the server that
        // validates the query.
        guard let number = Double(digits), number.isFinite,
            let bits = Int(exactly: (number * scale).rounded(.towardZero)), range.contains(bits)
        else {
            throw invalid(
                key, raw, "expected bits per second from \(range.lowerBound) to \(range.upperBound), e.g. 96k")
        }
        return bits
    }

    /// Reads `key` as a frame rate: an integer, a decimal or a fraction such as `30000/1001`.
    public mutating func frameRate(_ key: String) throws -> FrameRate? {
        guard let raw = take(key) else { return nil }
        guard let rate = FrameRate(parsing: raw) else {
            let limits = FrameRate.limits
            throw invalid(
                key, raw,
                "expected frames per second from \(limits.lowerBound) to \(limits.upperBound), "
                    + "e.g. 25, 29.97 or 30000/1001")
        }
        return rate
    }

    /// Reads `key` with `parse`, or nil when absent; a value `parse` refuses (nil) is `invalid_option`
    /// saying what was expected.
    public mutating func value<T>(_ key: String, expecting expectation: String, _ parse: (String) -> T?) throws -> T? {
        guard let raw = take(key) else { return nil }
        guard let value = parse(raw) else { throw invalid(key, raw, expectation) }
        return value
    }

    /// Throws `invalid_option` naming every key that no accessor read.
    public func finish() throws {
        guard !values.isEmpty else { return }
        let unknown = values.keys.sorted().joined(separator: ", ")
        let allowed = known.isEmpty ? "none" : known.sorted().joined(separator: ", ")
        throw MediaError(.invalidOption, "unknown option(s): \(unknown); this job takes: \(allowed)")
    }

    private mutating func take(_ key: String) -> String? {
        known.append(key)
        return values.removeValue(forKey: key)
    }

    private func invalid(_ key: String, _ raw: String, _ expectation: String) -> MediaError {
        MediaError(.invalidOption, "invalid value '\(raw)' for option \(key): \(expectation)")
    }
}
