import Foundation
import TestSupport
import Testing

/// The fuzz targets' seeds and the crashes they found (Fuzz/corpus/<target>/) run through the plain
/// RingsideFuzz build on every test run: a crash fixed once stays fixed. `scripts/fuzz.sh` fuzzes.
@Suite struct FuzzCorpusTests {
    static let binary = Paths.root + "/.build/debug/RingsideFuzz"

    @Test(
        "Every seed and every crash found so far runs through its target without a trap",
        arguments: ["http2", "request", "jwt", "certificate", "scenario", "control", "transcript", "payload", "escape"])
    func corpus(target: String) throws {
        let folder = Paths.root + "/Fuzz/corpus/" + target
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!inputs.isEmpty, "a seed corpus for \(target)")
        let result = try run(Self.binary, [target, folder], directory: Paths.root)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(result.stdout.contains("\(target): \(inputs.count) inputs, none crashed"), "\(result.stdout)")
    }

    @Test("The control API answers a path that is only a query (the fuzzer's first crash) with 404, and keeps serving")
    func queryOnlyPath() throws {
        let world = try WorldServer()
        let port = try #require(URLComponents(string: world.controlURL)?.port)
        // curl will not send a request target that does not start with "/": a socket will.
        let raw = try run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import socket; s = socket.create_connection(('127.0.0.1', \(port))); s.settimeout(5); s.sendall(b'GET ? HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'); print(s.recv(100).split(b'\\r\\n')[0].decode())",
            ])
        #expect(raw.stdout.hasPrefix("HTTP/1.1 404"), "\(raw.stdout) \(raw.stderr)")
        #expect((try world.control("GET", "/health") as? [String: Any]) != nil, "still serving")
    }
}
