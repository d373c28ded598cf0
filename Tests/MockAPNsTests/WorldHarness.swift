import APNs
import Foundation
import HTTP2Server
import MockAPNs
import World

/// The mock with a world and its control API, both on free loopback ports, in this process.
final class WorldServer {
    let server: MockServer
    let control: HTTP2Server
    let world: SharedWorld
    var controlURL: String { "http://127.0.0.1:\(control.port)" }

    init(seed: UInt64 = 1, settings: [String: Any]? = nil, acceptsUnknownTokens: Bool = false) throws {
        let clock = SystemClock()
        world = SharedWorld(seed: seed)
        world.acceptsUnknownTokens = acceptsUnknownTokens
        server = try MockServer(world: world, clock: clock, seed: seed)
        let transcript = TranscriptBuffer()
        server.mock.addObserver(transcript)
        let api = ControlAPI(mock: server.mock, world: world, clock: clock, transcript: transcript)
        let trusted = server.http2.configuration.tls!
        let untrusted = try TLSContext(
            certificateFile: Paths.certs + "/server-untrusted.pem", keyFile: Paths.certs + "/server-untrusted.key",
            trustedCAFile: Paths.ca, clientCertificates: .optional)
        let http2 = server.http2
        api.switchServerCertificate = { http2.replaceTLSContext($0 ? untrusted : trusted) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.acceptsHTTP1 = true
        configuration.workers = 1
        control = HTTP2Server(configuration: configuration, service: api)
        try control.start()
        world.startTicking(clock: clock)
        if let settings { _ = try self.control("POST", "/settings", settings) }
    }

    deinit {
        world.stopTicking()
        control.stop()
    }

    /// One control-API call with curl (plain HTTP/1.1, as a test suite in any language would).
    @discardableResult
    func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any {
        var arguments = ["-sS", "-X", method, controlURL + path]
        if let body {
            arguments += [
                "-H", "content-type: application/json", "--data-binary",
                String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self),
            ]
        }
        let result = try run("/usr/bin/curl", arguments)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// Adds a phone with one app of `behaviour`; returns its id and VoIP token.
    func phone(_ behaviour: String = "reports-at-once", online: Bool = true, extra: [String: Any] = [:]) throws -> (
        id: Int, voip: String, alert: String
    ) {
        var app: [String: Any] = ["bundleId": "com.ringside.testapp", "behaviour": behaviour]
        app.merge(extra) { $1 }
        let phone =
            try control("POST", "/phones", ["name": "alice's iPhone", "online": online, "apps": [app]])
            as! [String: Any]
        let apps = phone["apps"] as! [[String: Any]]
        return (phone["id"] as! Int, apps[0]["voipToken"] as! String, apps[0]["alertToken"] as! String)
    }

    /// Waits (bounded) until the push with `apnsId` has a final outcome; returns its JSON.
    func outcome(apnsId: String, seconds: Double = 5) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let all = try control("GET", "/outcomes") as! [[String: Any]]
            if let fate = all.first(where: { $0["apnsId"] as? String == apnsId }),
                fate["outcome"] as? String != "pending" || Date() > deadline
            {
                return fate
            }
            if Date() > deadline { return [:] }
            usleep(20_000)
        }
    }
}
