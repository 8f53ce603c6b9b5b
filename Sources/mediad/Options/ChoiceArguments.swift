import ArgumentParser
import Logging
import MediadRuntime
import Server

// The enumerations `mediad serve` takes by name (`--log-format json`), read by their raw values.

extension LogLineHandler.Format: ExpressibleByArgument {}
extension IsolationSettings.Mode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
