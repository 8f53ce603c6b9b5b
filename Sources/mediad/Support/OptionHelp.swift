import ArgumentParser
import MediaJobs

extension ArgumentHelp {
    /// The help of a job option as its kind describes it, so `--help`, the API and consoles say the same:
    /// the description, then the values a choice (or a comma list) takes and the default. `format` options say instead that
    /// the default comes from the output's extension.
    static func option(_ option: OptionDescription, defaultFromOutput: Bool = false) -> ArgumentHelp {
        var text = option.help
        if option.type == .choiceList {
            text += " Any of: \(option.allowed.joined(separator: ", ")), separated by commas."
        } else if !option.allowed.isEmpty {
            text += " One of: \(option.allowed.joined(separator: ", "))."
        }
        if defaultFromOutput {
            text += " Default: from the output's extension."
        } else if let value = option.defaultValue {
            text += " Default: \(value)."
        }
        return ArgumentHelp(text)
    }
}
