import APNs
import Foundation
import HTTP2Server
import MockAPNs
import World

/// The mock with a world and its control API, both on free loopback ports, in this process: the
/// same `MockAssembly` as `ringside serve`.
public final class WorldServer: WorldControl {
    /// The fake APNs: its port, URL and what it saw.
    public struct Endpoint: MockEndpoint {
        public let events: EventLog
        public let port: UInt16
        public var url: String { "https://127.0.0.1:\(port)" }
    }

    public let assembly: MockAssembly
    public let server: Endpoint
    public var world: SharedWorld { assembly.world }
    public var controlURL: String { "http://127.0.0.1:\(assembly.controlServer!.port)" }

    public init(
        seed: UInt64 = 1, settings: [String: Any]? = nil, acceptsUnknownTokens: Bool = false,
        kept: Int = MockOptions.keptByDefault
    ) throws {
        var options = MockOptions(certs: Paths.certs)
        options.kept = kept
        options.seed = seed
        options.acceptsUnknownTokens = acceptsUnknownTokens
        options.server.port = 0
        options.server.workers = 2
        options.controlPort = 0
        assembly = try MockAssembly(options)
        let events = EventLog()
        assembly.mock.addObserver(events)
        try assembly.start()
        server = Endpoint(events: events, port: assembly.server.port)
        if let settings { _ = try self.control("POST", "/settings", settings) }
    }

    deinit { assembly.stop() }

    /// One control-API call with curl (plain HTTP/1.1, as a test suite in any language would).
    @discardableResult
    public func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any {
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

    /// Waits (bounded) until the push with `apnsId` has a final outcome; returns its JSON.
    public func outcome(apnsId: String, seconds: Double = 5) throws -> [String: Any] {
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

/// A mock's world driven through its control API, over loopback (`WorldServer`) or in memory
/// (`MemoryMock`).
public protocol WorldControl {
    /// One control-API call; the JSON it answered.
    @discardableResult
    func control(_ method: String, _ path: String, _ body: [String: Any]?) throws -> Any
}

extension WorldControl {
    /// Adds a phone with one app of `behaviour`; returns its id and tokens.
    public func phone(_ behaviour: String = "reports-at-once", online: Bool = true, extra: [String: Any] = [:]) throws
        -> (id: Int, voip: String, alert: String)
    {
        var app: [String: Any] = ["bundleId": "com.ringside.testapp", "behaviour": behaviour]
        app.merge(extra) { $1 }
        let phone =
            try control("POST", "/phones", ["name": "alice's iPhone", "online": online, "apps": [app]])
            as! [String: Any]
        let apps = phone["apps"] as! [[String: Any]]
        return (phone["id"] as! Int, apps[0]["voipToken"] as! String, apps[0]["alertToken"] as! String)
    }
}
