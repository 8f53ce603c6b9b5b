import Foundation
import NIOCore
import NIOPosix

extension HTTPClient {
    /// Why a connection could not be made, in the system's words ("Connection refused", "timed out"), not
    /// as NIO's error structures, for messages a person reads.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let failure as NIOConnectionError:
            if let first = failure.connectionErrors.first { return reason(first.error) }
            if let lookup = failure.dnsAError ?? failure.dnsAAAAError {
                return "cannot resolve the host (\(reason(lookup)))"
            }
            return "the host has no address"
        case let failure as IOError:
            return String(cString: strerror(failure.errnoCode))
        case let failure as ChannelError:
            if case .connectTimeout = failure { return "timed out" }
            return "\(failure)"
        default:
            return "\(error)"
        }
    }
}
