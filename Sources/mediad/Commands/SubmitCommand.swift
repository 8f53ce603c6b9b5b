import ArgumentParser
import Foundation
import JobStore
import MediaJobs
import MediadClient

struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Run a job on a mediad server: upload a file, wait for the job, download its outputs.",
        discussion: """
            For CI scripts. The file is streamed to the server (never read into memory); the command then \
            long-polls the job, with a progress bar on a terminal, downloads every output into the output \
            directory (each checked against the SHA-256 the server lists, written under a hidden temporary \
            name and renamed when complete) and prints their paths. A primary output the server can send while \
            the job writes it (MPEG-TS, ADTS, fragmented MP4 with global_sidx=false …) is downloaded meanwhile, \
            so the command ends soon after the job; it is kept only if it is exactly what the job lists, and a \
            job that fails leaves nothing of it. The file's name goes with it (PUT \
            /jobs/<kind>/<name>), and the primary output is saved under it with the output's extension \
            (talk.mov → talk.mkv), a package's tree of outputs as its folders (240p/seg_00001.m4s); the job's \
            warnings go to stderr. A file over --resumable-over goes up as a resumable tus upload (POST \
            /uploads, then PATCH) that becomes the job with its last byte; after a cut connection, a timeout \
            or a server restart the command asks the server how much it holds (HEAD) and sends the rest, up \
            to 8 times, waiting 1, 2, 4 … seconds between tries. With --idempotency-key, and for mux, the \
            file always goes in one request. The token comes from MEDIAD_TOKEN, the \
            server from --server or MEDIAD_SERVER. An https server's certificate is verified against the system's \
            certificate authorities and those in --ca-file (or MEDIAD_CA_FILE). On failure — the job's, or the server refusing the \
            request (401, 413, 415 …) — it prints `error: <code>: <message>` and exits with status 1.

            Examples:
              mediad submit remux talk.mov --option format=mkv -o out/
              MEDIAD_TOKEN=… mediad submit encode voice.wav \\
                --server http://media.internal:8080 --option bitrate=128k \\
                --idempotency-key "$CI_JOB_ID-voice"
            """)

    static let kinds = JobCatalog.names

    @Argument(
        help: ArgumentHelp(
            "The job kind: \(JobCatalog.names.dropLast().joined(separator: ", ")) or \(JobCatalog.names.last!)."))
    var kind: String

    @Argument(help: "The input file.")
    var file: String

    @Option(help: "The server's base URL, http:// or https:// (default: MEDIAD_SERVER, else http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "A PEM file of certificate authorities trusted for https besides the system's (or MEDIAD_CA_FILE).")
    var caFile: String?

    @Option(name: .customLong("option"), help: "A job option as key=value (repeatable), e.g. --option format=mkv.")
    var options: [String] = []

    @Option(name: .shortAndLong, help: "The directory the outputs are written to.")
    var output = "."

    @Option(help: "Sent as Idempotency-Key, so a retried submit does not start the job twice.")
    var idempotencyKey: String?

    @Option(
        help: ArgumentHelp(
            "Files larger than this go up as a resumable (tus) upload, taken up again after a cut connection: bytes, or with K, M, G.",
            valueName: "size"))
    var resumableOver: ByteCount = ByteCount(argument: "64M")!

    func run() async throws {
        do {
            try await submit()
        } catch let failure as JobClient.Failure {
            FileHandle.standardError.write(Data("error: \(failure.code): \(failure.message)\n".utf8))
            throw ExitCode(1)
        }
    }

    private func submit() async throws {
        guard Self.kinds.contains(kind) else {
            throw JobClient.Failure(
                code: "invalid_option", message: "no job kind '\(kind)'; kinds: \(Self.kinds.joined(separator: ", "))")
        }
        let pairs = try options.map { option -> (String, String) in
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                throw JobClient.Failure(code: "invalid_option", message: "--option takes key=value, not '\(option)'")
            }
            return (String(option[..<equals]), String(option[option.index(after: equals)...]))
        }
        let environment = ProcessInfo.processInfo.environment
        let base = server ?? environment["MEDIAD_SERVER"] ?? "http://127.0.0.1:8080"
        let url: HTTPURL
        do {
            url = try HTTPURL(base)
        } catch {
            throw JobClient.Failure(code: "invalid_option", message: "--server: \(error)")
        }
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw JobClient.Failure(code: "io_error", message: "cannot read \(file)")
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw JobClient.Failure(code: "io_error", message: "cannot create \(output): \(error.localizedDescription)")
        }
        let token = environment["MEDIAD_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let tls: ClientTLS
        do {
            tls = try ClientTLS(
                extraAuthorities: caFile ?? environment["MEDIAD_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
        } catch {
            throw JobClient.Failure(code: "invalid_option", message: "--ca-file: \(error)")
        }
        let client = try JobClient(server: url, token: token, tls: tls)

        var job: JobClient.Job
        // A kind of several inputs (mux) tells a raw file's part by its bytes, which a tus upload's metadata
        // cannot say in advance: its files go in one request.
        let oneInput = JobKind(rawValue: kind)?.inputs.count == 1
        if idempotencyKey == nil, oneInput, try fileSize() > resumableOver.bytes {
            job = try await client.submitResumable(kind: kind, file: file, options: pairs) { offset in
                FileHandle.standardError.write(Data("resuming the upload at byte \(offset)\n".utf8))
            }
        } else {
            job = try await client.submit(kind: kind, file: file, options: pairs, idempotencyKey: idempotencyKey)
        }
        // The primary output downloads while the job writes it when the server can follow it; the wait
        // below ends with the job, and so, soon after, does this download.
        let following = Task { [id = job.id, output] in await client.follow(id, into: output) }
        let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
        do {
            while !job.isFinished {
                bar.update(job.progress)
                job = try await client.poll(job.id, seconds: 2)
            }
        } catch {
            following.cancel()
            await following.value?.discard()
            throw error
        }
        bar.finish()
        var followed = await following.value
        defer { followed?.discard() }
        for warning in job.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        guard job.state == "succeeded" else {
            throw job.error ?? JobClient.Failure(code: job.state, message: "job \(job.id) ended \(job.state)")
        }
        for item in job.outputs {
            guard JobStore.isValidOutputName(item.name) else {
                throw JobClient.Failure(code: "invalid_response", message: "the server listed an unsafe output name")
            }
            let path = URL(fileURLWithPath: output).appendingPathComponent(localName(of: item.name)).path
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw JobClient.Failure(
                    code: "io_error", message: "cannot create \(folder): \(error.localizedDescription)")
            }
            if let early = followed, early.matches(item) {
                followed = nil
                try early.move(to: path)
            } else {
                try await client.download(item, to: path)
            }
            print(path)
        }
    }

    private func fileSize() throws -> Int64 {
        do {
            return (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw JobClient.Failure(code: "io_error", message: "cannot read \(file): \(error.localizedDescription)")
        }
    }

    /// The primary output (`output.mkv`) is saved under the input's name with the output's extension
    /// (`talk.mov` → `talk.mkv`), as the server names its download; other outputs keep their own names.
    private func localName(of outputName: String) -> String {
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        guard outputName.hasPrefix("output."), !stem.isEmpty, !stem.hasPrefix(".") else { return outputName }
        return stem + "." + URL(fileURLWithPath: outputName).pathExtension
    }

}
