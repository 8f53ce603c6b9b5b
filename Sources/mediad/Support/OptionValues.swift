/// Collects CLI flags into the string options that every front end parses the same way.
struct OptionValues {
    private(set) var values: [String: String] = [:]

    mutating func add(_ key: String, _ value: CustomStringConvertible?) {
        if let value { values[key] = value.description }
    }

    /// Adds each flag that was given, by option name: a command lists its flags once, as a table.
    mutating func add(_ named: KeyValuePairs<String, CustomStringConvertible?>) {
        for (key, value) in named { add(key, value) }
    }
}
