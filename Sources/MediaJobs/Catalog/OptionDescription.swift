import MediaCore

/// What one job option is, for people and tools: the CLI's help, the OpenAPI check, a web console.
public struct OptionDescription: Sendable, Equatable {
    /// How the option's value is written.
    public enum ValueType: String, Sendable {
        /// One of `allowed`.
        case choice
        /// `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`).
        case boolean
        case integer
        /// A number of seconds, e.g. `12.5`.
        case seconds
        /// Bits per second, e.g. `96000` or `96k`.
        case bitRate = "bit_rate"
        /// Frames per second, e.g. `25`, `29.97` or `30000/1001`.
        case frameRate = "frame_rate"
        /// Seconds separated by commas, e.g. `1,2.5,10`.
        case secondsList = "seconds_list"
        /// Values of `allowed` separated by commas, e.g. `1080p,720p`.
        case choiceList = "choice_list"
        /// An sRGB colour in hex, `RRGGBB` or `RRGGBBAA`, e.g. `3a74e6`.
        case color
    }

    /// The key in queries and form fields (`sample_rate`); the CLI flag is its kebab-case form.
    public var name: String
    public var type: ValueType
    /// The value used when the option is absent, as written in a request; nil when absence means
    /// something of its own (e.g. "no trim").
    public var defaultValue: String?
    /// The values a `choice` takes, or the items of a `choice_list`; empty for other types.
    public var allowed: [String]
    /// One sentence for help texts.
    public var help: String

    public init(
        _ name: String, _ type: ValueType, default defaultValue: String? = nil, allowed: [String] = [], help: String
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.allowed = allowed
        self.help = help
    }

    /// A `choice` among every case of `values`.
    public static func choice<T: RawRepresentable & CaseIterable>(
        _ name: String, of values: T.Type, default defaultValue: T? = nil, help: String
    ) -> OptionDescription where T.RawValue == String {
        OptionDescription(
            name, .choice, default: defaultValue?.rawValue, allowed: values.allCases.map(\.rawValue), help: help)
    }

    /// The `damaged` option of the kinds that read media (see `DamagedInput`).
    public static let damaged = choice(
        "damaged", of: DamagedInput.self, default: .salvage,
        help: "A cut or partly malformed input: salvage what can be read, saying in the warnings what was lost "
            + "(truncated_input), or refuse it.")

    /// The `fragmented` option of the kinds that write MP4 (remux, transcode).
    public static let fragmented = OptionDescription(
        "fragmented", .boolean, default: "false", help: "Write fragmented MP4: moof/mdat pairs (mp4, mov, m4a).")

    /// The `global_sidx` option that goes with `fragmented`: whether the file is rewritten at the end.
    public static let globalSidx = OptionDescription(
        "global_sidx", .boolean,
        help:
            "With fragmented: index every fragment in a global sidx and state the duration in mehd (default "
            + "true). Both are written by rewriting the file when the job ends; false writes it front to back, "
            + "so it can be downloaded while the job runs.")
}
