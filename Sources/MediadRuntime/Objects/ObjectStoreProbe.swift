import Foundation
import MediadFoundation
import MediadClient
import ObjectStorage

/// The check `serve --objects` makes before it listens: the bucket looked up, then a small object put under
/// the prefix, read back with HEAD and deleted. A store that cannot be used is then one line with a stable code, never a job that
/// fails later for it.
package enum ObjectStoreProbe {
    /// Why the store cannot be used: a stable code and one line for people (no secret in it).
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package enum Code: String, Sendable, CaseIterable {
            /// No credentials in the environment or the shared credentials file.
            case credentialsMissing = "objects_credentials_missing"
            /// Nothing answers at the endpoint (refused, unresolvable, cut, timed out, or failing with 5xx).
            case unreachable = "objects_unreachable"
            /// The store refused the keys (unknown key id, wrong secret) or the right to write, read or
            /// delete under the prefix.
            case accessDenied = "objects_access_denied"
            /// The bucket does not exist.
            case bucketMissing = "objects_bucket_missing"
            /// The store answered the probe in another way it should not have.
            case probeFailed = "objects_probe_failed"
        }

        package var code: Code
        package var message: String

        package init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        package var description: String { "\(code.rawValue): \(message)" }
    }

    /// The S3 codes that say the keys or their rights were refused.
    static let deniedCodes: Set<String> = [
        "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidToken", "ExpiredToken",
        "AllAccessDisabled", "AccountProblem",
    ]

    /// Checks that the bucket exists (HEAD), then puts, heads and deletes `mediad-probe/<random>` under the
    /// prefix; throws the `Refusal` that says why
    /// the store cannot be used.
    package static func check(_ client: S3Client) async throws(Refusal) {
        let key = "mediad-probe/" + RandomID.generate()
        let body = Array("mediad probe\n".utf8)
        do {
            guard try await client.bucketExists() else {
                throw Refusal(
                    .bucketMissing,
                    "the bucket \(client.location.bucket) does not exist at \(client.location.endpoint.hostHeader)")
            }
            try await client.putObject(key, body: .bytes(body), sha256Hex: SigV4Signer.sha256Hex(body))
            guard let info = try await client.headObject(key), info.size == Int64(body.count) else {
                throw Refusal(.probeFailed, "the probe object \(key) was stored but HEAD does not find it whole")
            }
            try await client.deleteObject(key)
        } catch let refusal as Refusal {
            throw refusal
        } catch let error as S3Error {
            throw refusal(error, location: client.location)
        } catch {
            throw Refusal(.probeFailed, "\(error)")
        }
    }

    /// The refusal an S3 error of the probe stands for.
    static func refusal(_ error: S3Error, location: S3Location) -> Refusal {
        let place = "s3://\(location.bucket)/\(location.prefix) at \(location.endpoint.hostHeader)"
        if error.code == "NoSuchBucket" {
            return Refusal(.bucketMissing, "the bucket \(location.bucket) does not exist (\(place)): \(error)")
        }
        if deniedCodes.contains(error.code) || error.status == 403 {
            return Refusal(
                .accessDenied,
                "the store refused the credentials or the right to put, read and delete under \(place): \(error)")
        }
        if error.isRetryable {
            return Refusal(.unreachable, "the object store does not answer (\(place)): \(error)")
        }
        return Refusal(.probeFailed, "the probe object could not be put, read and deleted under \(place): \(error)")
    }
}
