import APNs
import Foundation
import MockAPNs

@testable import HTTP2Server

/// The fake APNs and a client joined in memory: the mock's `Connection` — the engine a worker
/// drives — fed by `MemoryClient`, its timers on a `ManualClock`. No socket, no thread, no sleep:
/// an hour passes in `advance(by: 3600)`.
final class InMemoryMock {
    static let certs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("certs-test").path
    static let topic = "com.ringside.testapp.voip"
    static let token = String(repeating: "ab", count: 32)
    static let payload = Array(#"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}"#.utf8)

    let clock = ManualClock()
    let mock: MockAPNs
    let client = MemoryClient()
    let connection: Connection
    /// Actions the connection scheduled (`ConnectionControl.after`), due on the manual clock.
    private var timers: [(due: Double, order: Int, action: () -> Void)] = []
    private var scheduled = 0

    init(_ configure: (inout MockConfiguration) -> Void = { _ in }) throws {
        var configuration = MockConfiguration(
            validation: ValidationSettings(), keys: try KeyStore.load(directory: Self.certs))
        configuration.clock = clock
        configure(&configuration)
        mock = MockAPNs(configuration: configuration)
        connection = Connection(
            fd: -1, id: 1, peer: "memory", tls: nil, service: mock, limits: HTTP2Limits(), now: 0)
        connection.scheduler = { [unowned self] seconds, action in
            scheduled += 1
            timers.append((clock.now().wall + seconds, scheduled, action))
        }
        pump()
    }

    /// A provider token signed now, by the manual clock.
    func jwt() throws -> String {
        let key = try ES256Key(pem: String(contentsOfFile: Self.certs + "/AuthKey_RINGKEY001.p8", encoding: .utf8))
        return try ProviderToken.sign(
            keyId: "RINGKEY001", teamId: "RINGTEAM01", issuedAt: Int64(clock.now().wall), key: key)
    }

    /// Queues a VoIP push as a provider sends it; `changes` replace or (nil) remove headers.
    @discardableResult
    func push(token: String = token, jwt: String, _ changes: [String: String?] = [:]) -> Int32 {
        var fields: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"),
            (":authority", "api.sandbox.push.apple.com"), ("authorization", "bearer \(jwt)"),
            ("apns-topic", Self.topic), ("apns-push-type", "voip"), ("apns-priority", "10"), ("apns-expiration", "0"),
        ]
        for (name, value) in changes {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        return client.request(fields, body: Self.payload)
    }

    /// Carries bytes both ways, and runs what is due, until neither side has anything to say.
    func pump() {
        for _ in 0..<1000 {
            let request = client.output()
            if !request.isEmpty { _ = request.withUnsafeBytes { connection.received($0) } }
            let ran = runDue()
            mock.turnEnded()
            connection.flush()
            let answer = Array(connection.output[connection.outputOffset...])
            connection.output.removeAll()
            connection.outputOffset = 0
            if !answer.isEmpty { client.receive(answer) }
            if request.isEmpty, answer.isEmpty, !ran { return }
        }
        preconditionFailure("the client and the mock kept talking for 1000 rounds")
    }

    /// Moves the manual clock (world and wall) and plays what falls due.
    func advance(by seconds: Double) {
        clock.advance(by: seconds)
        pump()
    }

    private func runDue() -> Bool {
        let now = clock.now().wall
        let due = timers.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        guard !due.isEmpty else { return false }
        timers.removeAll { $0.due <= now }
        for timer in due { timer.action() }
        return true
    }
}
