import Foundation

/// The `MEDIAD_*` variables `mediad serve` falls back on for each setting whose flag is not given.
struct ServeEnvironment {
    var variables = ProcessInfo.processInfo.environment

    /// The flag's value when it is given (a flag wins), else the environment variable's, read the same way,
    /// else nil.
    func value<Value>(_ flagValue: Value?, _ setting: ServeSetting<Value>) throws -> Value? {
        if let flagValue { return flagValue }
        return try variables[setting.environmentVariable].map(setting.read)
    }

    /// Sets `target` to the flag's or the environment's value; leaves it at its default when neither has one.
    func assign<Value>(_ flagValue: Value?, _ setting: ServeSetting<Value>, to target: inout Value) throws {
        if let value = try value(flagValue, setting) { target = value }
    }
}
