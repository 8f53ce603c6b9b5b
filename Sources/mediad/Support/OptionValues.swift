/// Collects CLI flags into the string options that every front end parses the same way.
struct OptionValues {
    private(set) var values: [String: String] = [:]

    mutating func add(_ key: String, _ value: CustomStringConvertible?) {
        if let value { values[key] = value.description }
    }
}
