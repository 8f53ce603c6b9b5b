/// Keeps a replica's claim passes to one at a time: a pass asked for while one runs makes that one go
/// round once more instead of starting beside it (which would claim for the same free worker twice).
/// Belongs to a scheduler (`LeaseScheduler`, `DatabaseScheduler`), on its job service's actor.
struct ClaimPasses {
    /// A pass is under way.
    private var running = false
    /// Another pass was asked for while one ran.
    private var askedAgain = false

    /// Whether a pass should start now; false when one is under way, which then goes round again.
    mutating func start() -> Bool {
        guard !running else {
            askedAgain = true
            return false
        }
        running = true
        return true
    }

    /// At the end of a round: whether to go round again (another pass was asked for meanwhile, and
    /// `worthIt`, the service accepts work and has room); else the pass ends.
    mutating func goesRoundAgain(worthIt: Bool) -> Bool {
        defer { askedAgain = false }
        guard askedAgain, worthIt else {
            running = false
            return false
        }
        return true
    }
}
