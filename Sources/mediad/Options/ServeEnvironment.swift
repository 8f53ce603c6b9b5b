import ArgumentParser
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

    /// The flag's or the environment's value made into another by `make` (a host list, a certificate file),
    /// else nil; what `make` refuses is a usage error naming the flag: `--webhook-allow: <why>`.
    func value<Value, Made>(
        _ flagValue: Value?, _ setting: ServeSetting<Value>, _ make: (Value) throws -> Made
    ) throws -> Made? {
        guard let value = try value(flagValue, setting) else { return nil }
        do {
            return try make(value)
        } catch {
            throw ValidationError("--\(setting.flag): \(error)")
        }
    }

    /// Sets `target` to the flag's or the environment's value; leaves it at its default when neither has one.
    func assign<Value>(_ flagValue: Value?, _ setting: ServeSetting<Value>, to target: inout Value) throws {
        if let value = try value(flagValue, setting) { target = value }
    }
}
