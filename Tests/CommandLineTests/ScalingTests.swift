import Foundation
import TestSupport
import Testing

/// docs/scaling.md, the part that runs here (issue 48, point 7): two mocks, each owning a share of
/// the phones by token prefix (`serve --token-prefix`), behind HAProxy routing /3/device/<prefix>…
/// over HTTP/2 with TLS; a push to each share's token rings on that share's phone, and a token of
/// one share sent to the other's mock rings nothing (Tests/scaling/two_shards.sh).
@Suite struct ScalingTests {
    @Test("Two mocks behind a proxy, each owning a share of the tokens: a push to each share rings")
    func twoSharesBehindAProxy() throws {
        let result = try run(
            "/bin/bash", [Paths.root + "/Tests/scaling/two_shards.sh", Paths.ringside, Paths.certs])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines == ["share 0: 200 rang", "share 8: 200 rang", "cross: 200, 0 push reached a phone"], "\(lines)")
    }
}
