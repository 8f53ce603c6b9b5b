import Foundation
import Server
import TestSupport
import Testing

/// `deploy/kubernetes/*.yaml`, parsed with PyYAML (`make test-deps`): the fields a cluster would get
/// wrong silently — ports, probe paths, the shared volume, the security context, what the autoscaler scales.
@Suite struct KubernetesManifestTests {
    static let directory = DockerfileTests.root.appendingPathComponent("deploy/kubernetes")

    /// Every document of every manifest, by kind.
    static func documents() throws -> [String: [String: Any]] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }
            .sorted().map { directory.appendingPathComponent($0).path }
        let script = """
            import json, sys, yaml
            print(json.dumps([d for p in sys.argv[1:] for d in yaml.safe_load_all(open(p)) if d]))
            """
        let output = try Command.run("python3", ["-c", script] + files)
        let parsed = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [[String: Any]])
        var byKind: [String: [String: Any]] = [:]
        for document in parsed {
            let kind = try #require(document["kind"] as? String)
            #expect(byKind[kind] == nil, "one \(kind) only")
            byKind[kind] = document
        }
        return byKind
    }

    static func container(_ deployment: [String: Any]) throws -> [String: Any] {
        let containers = try #require(deployment[path: "spec.template.spec.containers"] as? [[String: Any]])
        return try #require(containers.first)
    }

    @Test func everyManifestIsListedAndKnown() throws {
        let documents = try Self.documents()
        #expect(
            Set(documents.keys) == [
                "Deployment", "Service", "PersistentVolumeClaim", "HorizontalPodAutoscaler", "Kustomization",
            ])
        let listed = try #require(documents["Kustomization"]?["resources"] as? [String])
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }
        #expect(Set(listed) == Set(files))
    }

    @Test func portsAndProbesMatchTheServer() throws {
        let documents = try Self.documents()
        let deployment = try #require(documents["Deployment"])
        let container = try Self.container(deployment)
        let ports = try #require(container["ports"] as? [[String: Any]])
        let http = try #require(ports.first { $0["name"] as? String == "http" })
        #expect(http["containerPort"] as? Int == ServerConfiguration().port)
        let arguments = (container["args"] as? [String] ?? []).joined(separator: " ")
        #expect(arguments.contains("--host 0.0.0.0") && arguments.contains("--port \(ServerConfiguration().port)"))
        for (probe, path) in [("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")] {
            let get = try #require(container[path: probe + ".httpGet"] as? [String: Any], "\(probe)")
            #expect(get["path"] as? String == path)
            #expect(DockerfileTests.getRoutes.contains(path))
            #expect(get["port"] as? String == "http" || get["port"] as? Int == ServerConfiguration().port)
        }
        let service = try #require(documents["Service"])
        let servicePorts = try #require(service[path: "spec.ports"] as? [[String: Any]])
        #expect(servicePorts.contains { $0["targetPort"] as? String == "http" })
        let labels = try #require(deployment[path: "spec.template.metadata.labels"] as? [String: String])
        let selector = try #require(service[path: "spec.selector"] as? [String: String])
        #expect(!selector.isEmpty && selector.allSatisfy { labels[$0.key] == $0.value })
        #expect(deployment[path: "spec.selector.matchLabels"] as? [String: String] == selector)
    }

    @Test func dataComesFromAReadWriteManyClaim() throws {
        let documents = try Self.documents()
        let deployment = try #require(documents["Deployment"])
        let mounts = try #require(try Self.container(deployment)["volumeMounts"] as? [[String: Any]])
        let data = try #require(mounts.first { $0["mountPath"] as? String == "/data" })
        let volumes = try #require(deployment[path: "spec.template.spec.volumes"] as? [[String: Any]])
        let volume = try #require(volumes.first { $0["name"] as? String == data["name"] as? String })
        let claim = try #require(documents["PersistentVolumeClaim"])
        #expect(volume[path: "persistentVolumeClaim.claimName"] as? String == claim[path: "metadata.name"] as? String)
        #expect(claim[path: "spec.accessModes"] as? [String] == ["ReadWriteMany"])
        #expect(claim[path: "spec.resources.requests.storage"] != nil)
        // Several replicas share the claim, so they run in shared-store mode.
        let env = try #require(try Self.container(deployment)["env"] as? [[String: Any]])
        #expect(env.contains { $0["name"] as? String == "MEDIAD_SHARED_STORE" && $0["value"] as? String == "1" })
    }

    @Test func runsLockedDown() throws {
        let deployment = try #require(try Self.documents()["Deployment"])
        let container = try Self.container(deployment)
        #expect(deployment[path: "spec.template.spec.securityContext.runAsNonRoot"] as? Bool == true)
        #expect((deployment[path: "spec.template.spec.securityContext.runAsUser"] as? Int ?? 0) > 0)
        let security = try #require(container["securityContext"] as? [String: Any])
        #expect(security["readOnlyRootFilesystem"] as? Bool == true)
        #expect(security["allowPrivilegeEscalation"] as? Bool == false)
        #expect(security[path: "capabilities.drop"] as? [String] == ["ALL"])
        for kind in ["requests", "limits"] {
            #expect(
                container[path: "resources.\(kind).cpu"] != nil && container[path: "resources.\(kind).memory"] != nil)
        }
        let grace = try #require(deployment[path: "spec.template.spec.terminationGracePeriodSeconds"] as? Int)
        let pause = (container[path: "lifecycle.preStop.exec.command"] as? [String])?.last.flatMap(Double.init) ?? 0
        #expect(Double(grace) > pause + ServerConfiguration().shutdownGrace, "SIGKILL only after the shutdown grace")
    }

    /// Every `MEDIAD_*` variable the Deployment sets is one `mediad serve` reads.
    @Test func environmentNamesAreOnesTheServerReads() throws {
        let container = try Self.container(try #require(try Self.documents()["Deployment"]))
        let help = try Command.run(ServerProcess.binary, ["serve", "--help"]).text
        let names = (container["env"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(!names.isEmpty)
        for name in names { #expect(help.contains(name), "\(name) is not in mediad serve --help") }
    }

    @Test func autoscalerScalesTheDeployment() throws {
        let documents = try Self.documents()
        let hpa = try #require(documents["HorizontalPodAutoscaler"])
        #expect(hpa["apiVersion"] as? String == "autoscaling/v2")
        #expect(hpa[path: "spec.scaleTargetRef.kind"] as? String == "Deployment")
        #expect(
            hpa[path: "spec.scaleTargetRef.name"] as? String == documents["Deployment"]?[path: "metadata.name"]
                as? String)
        let minimum = try #require(hpa[path: "spec.minReplicas"] as? Int)
        let maximum = try #require(hpa[path: "spec.maxReplicas"] as? Int)
        #expect(1 <= minimum && minimum <= maximum)
        #expect(!(hpa[path: "spec.metrics"] as? [Any] ?? []).isEmpty)
    }

    /// `deploy/kubernetes/database`: the base with the replicas on PostgreSQL, the URL from a Secret, and no
    /// shared-store mode.
    @Test func theDatabaseOverlayTakesItsURLFromASecret() throws {
        let overlay = Self.directory.appendingPathComponent("database")
        let script = """
            import json, sys
            import yaml
            print(json.dumps([yaml.safe_load(open(p)) for p in sys.argv[1:]]))
            """
        let files = ["kustomization.yaml", "deployment-patch.yaml"].map { overlay.appendingPathComponent($0).path }
        let output = try Command.run("python3", ["-c", script] + files)
        let parsed = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [[String: Any]])
        let (kustomization, patch) = (parsed[0], parsed[1])
        #expect(kustomization["resources"] as? [String] == [".."])
        let patches = try #require(kustomization["patches"] as? [[String: Any]])
        #expect(patches.compactMap { $0["path"] as? String } == ["deployment-patch.yaml"])

        let base = try #require(try Self.documents()["Deployment"])
        #expect(patch["kind"] as? String == "Deployment")
        #expect(patch[path: "metadata.name"] as? String == base[path: "metadata.name"] as? String)
        let container = try Self.container(patch)
        #expect(container["name"] as? String == (try Self.container(base))["name"] as? String)
        let env = try #require(container["env"] as? [[String: Any]])
        let url = try #require(env.first { $0["name"] as? String == "MEDIAD_DATABASE_URL" })
        #expect(url[path: "valueFrom.secretKeyRef.name"] as? String == "mediad-database")
        #expect(url[path: "valueFrom.secretKeyRef.key"] as? String == "url")
        let dropped = env.first { $0["name"] as? String == "MEDIAD_SHARED_STORE" }
        #expect(dropped?["$patch"] as? String == "delete", "the overlay turns shared-store mode off")
        let help = try Command.run(ServerProcess.binary, ["serve", "--help"]).text
        #expect(help.contains("MEDIAD_DATABASE_URL"))
    }

    /// `deploy/kubernetes/objects`: the database overlay with media in a bucket, its keys from a Secret, and
    /// no shared volume (the claim deleted, /data a pod's own emptyDir).
    @Test func theObjectsOverlayNeedsNoSharedVolume() throws {
        let overlay = Self.directory.appendingPathComponent("objects")
        let script = """
            import json, sys
            import yaml
            print(json.dumps([yaml.safe_load(open(p)) for p in sys.argv[1:]]))
            """
        let files = ["kustomization.yaml", "deployment-patch.yaml", "claim-delete.yaml"].map {
            overlay.appendingPathComponent($0).path
        }
        let output = try Command.run("python3", ["-c", script] + files)
        let parsed = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [[String: Any]])
        let (kustomization, patch, claim) = (parsed[0], parsed[1], parsed[2])
        #expect(kustomization["resources"] as? [String] == ["../database"])
        let patches = try #require(kustomization["patches"] as? [[String: Any]])
        #expect(Set(patches.compactMap { $0["path"] as? String }) == ["deployment-patch.yaml", "claim-delete.yaml"])

        let base = try Self.documents()
        #expect(claim["kind"] as? String == "PersistentVolumeClaim" && claim["$patch"] as? String == "delete")
        #expect(
            claim[path: "metadata.name"] as? String
                == base["PersistentVolumeClaim"]?[path: "metadata.name"] as? String)
        let volumes = try #require(patch[path: "spec.template.spec.volumes"] as? [[String: Any]])
        let data = try #require(volumes.first { $0["name"] as? String == "data" })
        #expect(data["emptyDir"] != nil && data.keys.contains("persistentVolumeClaim"))
        #expect(data["persistentVolumeClaim"] is NSNull, "the patch removes the base's claim from the volume")

        let env = try #require(try Self.container(patch)["env"] as? [[String: Any]])
        let objects = try #require(env.first { $0["name"] as? String == "MEDIAD_OBJECTS" })
        #expect((objects["value"] as? String)?.hasPrefix("s3://") == true)
        for (name, key) in [("AWS_ACCESS_KEY_ID", "access-key-id"), ("AWS_SECRET_ACCESS_KEY", "secret-access-key")] {
            let variable = try #require(env.first { $0["name"] as? String == name }, "\(name)")
            #expect(variable[path: "valueFrom.secretKeyRef.name"] as? String == "mediad-objects")
            #expect(variable[path: "valueFrom.secretKeyRef.key"] as? String == key)
        }
        let help = try Command.run(ServerProcess.binary, ["serve", "--help"]).text
        for name in env.compactMap({ $0["name"] as? String }) where name.hasPrefix("MEDIAD_") {
            #expect(help.contains(name), "\(name) is not in mediad serve --help")
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The value at a dotted path of nested objects, e.g. `spec.template.spec`.
    subscript(path path: String) -> Any? {
        var current: Any? = self
        for key in path.split(separator: ".") { current = (current as? [String: Any])?[String(key)] }
        return current
    }
}
