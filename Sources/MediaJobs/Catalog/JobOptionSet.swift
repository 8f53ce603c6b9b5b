import MediaCore

/// The options of one job kind, after defaults.
///
/// Both ways in validate: `init(parsing:)` for string options from a request or the command line, and
/// `init(from:)` for a record read back from disk, so a record edited into nonsense is refused on load
/// instead of reaching the engine.
public protocol JobOptionSet: Codable, Sendable, Equatable {
    /// Parses string options (query parameters, form fields, CLI flags) with `OptionReader`; throws
    /// `invalid_option` for an unknown key or a bad value.
    init(parsing values: [String: String]) throws
    /// Every option, for help texts, the API description and consoles.
    static var descriptions: [OptionDescription] { get }
}

extension JobOptionSet {
    /// The description of option `name`; traps when there is none, which is a programming error.
    public static func description(of name: String) -> OptionDescription {
        guard let description = descriptions.first(where: { $0.name == name }) else {
            preconditionFailure("no option \(name) in \(Self.self)")
        }
        return description
    }
}
