import MediadHTTP
import NIOHTTP1
import Synchronization

/// How many event streams (`GET /events`, `GET /jobs/{id}/events`) may be open at once: on the whole
/// server (`--max-streams`), and for one client (`--max-streams-per-client`), counted both by access
/// token and by client address.
///
/// A stream holds its connection for as long as its client stays, and a client that reads its heartbeats
/// may stay for ever: without a cap, subscribers alone could take every place of `--max-connections`,
/// and one tenant could lock every other out of submissions and downloads. The overall cap leaves room
/// below `--max-connections` for other requests; the per-client caps keep one token, or one address,
/// from taking all of it. A stream past a cap is refused with 429 `too_many_streams` and `Retry-After`
/// before it starts.
final class EventStreamSlots: Sendable {
    /// The caps, once `--max-connections` is known.
    struct Limits: Sendable, Equatable {
        /// Streams open at once on the whole server.
        var overall: Int
        /// Streams one access token, or one client address, may have open at once.
        var perClient: Int
    }

    private struct Counts {
        var total = 0
        var byToken: [String: Int] = [:]
        var byAddress: [String: Int] = [:]
    }

    let limits: Limits
    private let counts = Mutex(Counts())
    /// What a refused client is told to wait, in seconds: streams end only when their clients leave.
    static let retryAfterSeconds = 10

    init(limits: Limits) {
        self.limits = limits
    }

    /// A place for one stream, given back when the slot is released (its response has been written,
    /// streamed or not: the stream's closure holds the slot); 429 `too_many_streams` when a cap is reached.
    func take(token: String?, address: String?) throws -> Slot {
        let refusal = counts.withLock { counts -> String? in
            if counts.total >= limits.overall {
                return "the server has \(limits.overall) event streams open, the most it serves"
            }
            if let token, counts.byToken[token, default: 0] >= limits.perClient {
                return "this API token has \(limits.perClient) event streams open, the most one client may"
            }
            if let address, counts.byAddress[address, default: 0] >= limits.perClient {
                return "this address has \(limits.perClient) event streams open, the most one client may"
            }
            counts.total += 1
            if let token { counts.byToken[token, default: 0] += 1 }
            if let address { counts.byAddress[address, default: 0] += 1 }
            return nil
        }
        if let refusal {
            throw ServiceError(
                .tooManyRequests, "too_many_streams", "\(refusal); close one or retry later",
                headers: [("Retry-After", String(Self.retryAfterSeconds))])
        }
        return Slot(slots: self, token: token, address: address)
    }

    private func give(token: String?, address: String?) {
        counts.withLock { counts in
            counts.total -= 1
            if let token { counts.byToken[token] = Self.decremented(counts.byToken[token]) }
            if let address { counts.byAddress[address] = Self.decremented(counts.byAddress[address]) }
        }
    }

    /// One less, or nil at zero, so that the tables hold only the clients with streams open.
    private static func decremented(_ count: Int?) -> Int? {
        guard let count, count > 1 else { return nil }
        return count - 1
    }

    /// One stream's place, given back when the slot is released: whatever way its response ends (a `HEAD`
    /// answered without a body, a client gone, a shutdown), no path can forget to give it back.
    final class Slot: Sendable {
        private let slots: EventStreamSlots
        private let token: String?
        private let address: String?

        fileprivate init(slots: EventStreamSlots, token: String?, address: String?) {
            self.slots = slots
            self.token = token
            self.address = address
        }

        deinit { slots.give(token: token, address: address) }
    }
}
