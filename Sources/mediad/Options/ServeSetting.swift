import ArgumentParser
import Foundation

/// One setting of `mediad serve`, declared once: the flag that sets it and its help, the `MEDIAD_*`
/// environment variable that sets it when the flag is not given, and how the text of either is read.
///
/// Both sources go through `read`, so a value is refused the same way wherever it comes from, with a usage
/// error that names the flag: `--lease-ttl must be a duration such as …, not 'soon'`.
struct ServeSetting<Value>: Sendable {
    /// The flag's name without its dashes: `max-upload`.
    let flag: String
    /// What the text must be, for the usage error: `an integer from 1 to 256`.
    let expectation: String
    /// What `--help` says of the option.
    let help: String
    private let parse: @Sendable (String) -> Value?
    /// The environment variable, when it is not named after the flag (`variable(_:)`).
    private var variableName: String?

    init(flag: String, expectation: String, help: String, parse: @escaping @Sendable (String) -> Value?) {
        self.flag = flag
        self.expectation = expectation
        self.help = help
        self.parse = parse
    }

    /// `MEDIAD_` and the flag's name in capitals with underscores: `MEDIAD_MAX_UPLOAD`.
    var environmentVariable: String {
        variableName ?? "MEDIAD_" + String(flag.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The setting read from the environment variable `name` instead: `--database` from
    /// `MEDIAD_DATABASE_URL`, the name such a URL usually goes by.
    func variable(_ name: String) -> Self {
        var named = self
        named.variableName = name
        return named
    }

    /// The value `text` stands for, or a usage error (exit status 64) naming the flag.
    @Sendable func read(_ text: String) throws -> Value {
        guard let value = parse(text) else { throw ValidationError("--\(flag) must be \(expectation), not '\(text)'") }
        return value
    }
}

extension ServeSetting where Value: ExpressibleByArgument {
    /// A setting whose text is read by its value type, limited to the values `accepts` allows.
    init(
        flag: String, expectation: String, help: String, accepts: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) {
        self.init(flag: flag, expectation: expectation, help: help) { text in
            Value(argument: text).flatMap { accepts($0) ? $0 : nil }
        }
    }
}

extension ServeSetting where Value == String {
    /// A setting taken as it is written: a host name, a path, a secret.
    static func text(_ flag: String, help: String) -> Self { Self(flag: flag, expectation: "text", help: help) }
}

extension ServeSetting where Value == Int {
    /// A count limited to `range`.
    static func integer(_ flag: String, _ range: ClosedRange<Int>, help: String) -> Self {
        Self(
            flag: flag, expectation: "an integer from \(range.lowerBound) to \(range.upperBound)", help: help,
            accepts: range.contains)
    }
}

extension ServeSetting where Value == Int64 {
    /// A size in bytes (`ByteCount`); with `zeroTurnsOff`, a plain `0` too, for limits that can be switched off.
    static func bytes(_ flag: String, zeroTurnsOff: Bool = false, help: String) -> Self {
        Self(flag: flag, expectation: "a size such as 4294967296 or 4G, below 8 EiB", help: help) { text in
            zeroTurnsOff && text == "0" ? 0 : ByteCount(argument: text)?.bytes
        }
    }
}

extension ServeSetting where Value == TimeInterval {
    /// A duration in seconds (`Seconds`).
    static func duration(_ flag: String, help: String) -> Self {
        Self(
            flag: flag, expectation: "a duration such as 3600, 90s, 30m or 24h (at most 100 years)", help: help
        ) { text in
            Seconds(argument: text)?.value
        }
    }
}

extension ServeSetting where Value: ExpressibleByArgument & CaseIterable & RawRepresentable<String> {
    /// One of an enumeration's names: `text or json`, or `one of trace, debug, …` when there are more than two.
    static func choice(_ flag: String, help: String) -> Self {
        let names = Value.allCases.map(\.rawValue)
        let expectation =
            names.count == 2 ? "\(names[0]) or \(names[1])" : "one of " + names.joined(separator: ", ")
        return Self(flag: flag, expectation: expectation, help: help)
    }
}

extension Option {
    /// The option of `setting`: its flag, its help, and its text read as the environment's is. Without a
    /// default, so that an option left out is told apart from one given.
    init<Setting>(_ setting: ServeSetting<Setting>) where Value == Setting? {
        self.init(name: .customLong(setting.flag), help: ArgumentHelp(setting.help), transform: setting.read)
    }
}
