import Foundation

/// Collects progress values reported by a job, from whatever thread reports them.
public final class ProgressLog: @unchecked Sendable {
    // All access goes through the lock.
    private let lock = NSLock()
    private var stored: [Double] = []

    public init() {}

    public func add(_ value: Double) { lock.withLock { stored.append(value) } }

    public var values: [Double] { lock.withLock { stored } }

    public var count: Int { values.count }
}
