import Foundation
import MediadClient
import ObjectStorage
import TestSupport
import Testing

/// `--objects`, `--s3-endpoint` and the credentials as `S3Location` and `S3Credentials` read them: what is
/// accepted, and a one-line error for what is not.
@Suite struct S3LocationTests {
    @Test func aLocationKeepsItsPartsAndJoinsKeysUnderThePrefix() throws {
        let location = try S3Location(
            objects: "s3://media-bucket/a/b/", endpoint: "http://127.0.0.1:9000", pathStyle: true)
        #expect(location.bucket == "media-bucket")
        #expect(location.prefix == "a/b/")
        #expect(location.region == "us-east-1")
        #expect(try location.objectKey("x y/ü.mp4") == "a/b/x y/ü.mp4")
        let aws = try S3Location(objects: "s3://media-bucket", region: "eu-central-1")
        #expect(aws.endpoint.description == "https://s3.eu-central-1.amazonaws.com/")
        #expect(aws.prefix == "")
    }

    @Test(
        arguments: [
            ("gs://bucket", nil, true, "must start with s3://"),
            ("s3://Bad_Bucket", nil, true, "not a valid S3 bucket name"),
            ("s3://ab", nil, true, "not a valid S3 bucket name"),
            ("s3://bucket/a//b", nil, true, "empty, \".\" or \"..\""),
            ("s3://bucket/../up", nil, true, "empty, \".\" or \"..\""),
            ("s3://bucket", "ftp://host", true, "--s3-endpoint is not a valid URL"),
            ("s3://bucket", "http://host:9000/path", true, "without a path"),
            ("s3://bucket", "http://127.0.0.1:9000", false, "use --s3-path-style"),
            ("s3://my.bucket", "https://s3.example.com", false, "use --s3-path-style"),
        ] as [(String, String?, Bool, String)])
    func badLocationsAreRefusedWithAReason(objects: String, endpoint: String?, pathStyle: Bool, reason: String) {
        let error = #expect(throws: S3Location.Invalid.self) {
            try S3Location(objects: objects, endpoint: endpoint, pathStyle: pathStyle)
        }
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
    }

    @Test(arguments: ["../x", "a/../../x", "/abs", "a//b", "", "tab\there", "."])
    func keysThatCouldLeaveThePrefixAreRefused(key: String) throws {
        let location = try S3Location(objects: "s3://bucket/tenant", endpoint: "http://127.0.0.1:1", pathStyle: true)
        #expect(throws: S3Location.Invalid.self) { try location.objectKey(key) }
    }

    @Test func credentialsComeFromTheEnvironmentThenTheSharedFile() throws {
        let fromEnvironment = try S3Credentials.load(environment: [
            "AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "TK",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        ])
        #expect(fromEnvironment == SigningCredentials(accessKeyID: "AK", secretAccessKey: "SK", sessionToken: "TK"))
        let scratch = try Scratch("s3-credentials")
        let file = try scratch.write(
            "credentials",
            Array(
                """
                # comment
                [default]
                aws_access_key_id = DEFAULTKEY
                aws_secret_access_key = defaultsecret

                [media]
                aws_access_key_id=MEDIAKEY
                aws_secret_access_key=media/secret+=
                aws_session_token = token
                """.utf8))
        let byDefault = try S3Credentials.load(environment: ["AWS_SHARED_CREDENTIALS_FILE": file])
        #expect(byDefault == SigningCredentials(accessKeyID: "DEFAULTKEY", secretAccessKey: "defaultsecret"))
        let profile = try S3Credentials.load(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "media"])
        #expect(
            profile
                == SigningCredentials(accessKeyID: "MEDIAKEY", secretAccessKey: "media/secret+=", sessionToken: "token")
        )
        let noProfile = #expect(throws: S3Credentials.Missing.self) {
            try S3Credentials.load(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "other"])
        }
        #expect(noProfile?.message.contains("no [other] profile") == true)
        let none = #expect(throws: S3Credentials.Missing.self) {
            try S3Credentials.load(environment: ["HOME": scratch.path])
        }
        #expect(none?.message.contains("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") == true)
        let half = #expect(throws: S3Credentials.Missing.self) {
            try S3Credentials.load(environment: ["AWS_ACCESS_KEY_ID": "AK"])
        }
        #expect(half?.message == "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
    }
}
