import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Provider
import ScenarioLanguage

/// The mock's in-memory connection is a wire the built-in provider's client can dial.
extension EmbeddedWire: Wire {}

extension EmbeddedMock {
    /// The built-in provider's client configuration for this mock: every connection dialled in
    /// memory (TLS included unless the mock is cleartext), the provider's clock the manual clock's
    /// wall time.
    public func clientConfiguration(
        caFile: String, authentication: ClientConfiguration.Authentication, timeout: Double
    ) -> ClientConfiguration {
        var configuration = ClientConfiguration(
            url: url, caFile: caFile, authentication: authentication, timeout: timeout)
        nonisolated(unsafe) let mock = self
        configuration.dial = { _, _, timeout in mock.dial(timeout: timeout) }
        let clock = clock
        configuration.now = { clock.now().wall }
        return configuration
    }
}

/// Where a scenario's mock runs (`ScenarioRunner.transport`).
public enum ScenarioTransport: Sendable {
    /// `serve`'s server on a free loopback port and the wall clock: any provider.
    case loopback
    /// `EmbeddedMock` on a manual clock: the built-in provider only, dialling it in memory; waits
    /// pass on the clock, not the wall. The same engine, TLS and world; what a worker adds (idle
    /// and handshake timeouts, its event loop) is not there.
    case memory

    /// Whether nothing but the built-in provider speaks to the mock: an exec or http provider, or an
    /// `exec` step's command, needs a socket.
    public static func canRunInMemory(_ plan: ScenarioPlan) -> Bool {
        guard case .builtin = plan.provider else { return false }
        return !plan.steps.contains { if case .exec = $0.action { true } else { false } }
    }

    /// A scenario asked to run in memory that cannot.
    struct NeedsASocket: Error, CustomStringConvertible {
        var description: String {
            "a scenario runs in memory only with the built-in provider and no `exec` step: a command or an exec or http provider needs a socket"
        }
    }
}

/// A scenario's mock as the runner drives it: its assembly, its clock, and how the runner's waits
/// pass — slept on loopback, passed on the manual clock in memory.
final class ScenarioMock: WaitingClock {
    let assembly: MockAssembly
    let embedded: EmbeddedMock?
    let clock: any AdvanceableClock

    init(_ options: MockOptions, transport: ScenarioTransport) throws {
        switch transport {
        case .loopback:
            assembly = try MockAssembly(options)
            embedded = nil
            clock = assembly.clock
        case .memory:
            let manual = ManualClock(Moment(Date().timeIntervalSince1970))
            let embedded = try EmbeddedMock(options, clock: manual)
            assembly = embedded.assembly
            self.embedded = embedded
            clock = manual
        }
    }

    func start() throws {
        if embedded == nil { try assembly.start() }
    }

    func stop() {
        if let embedded { embedded.close() } else { assembly.stop() }
    }

    /// The wall clock the mock stamps events with.
    var wall: Double { clock.now().wall }

    /// Time goes by for one of the runner's waits.
    func pause(_ seconds: Double) {
        guard seconds > 0 else { return }
        if let embedded { embedded.passes(seconds) } else { usleep(UInt32(seconds * 1_000_000)) }
    }

    /// In memory a millisecond passes before each step, as it would on loopback: two calls are never
    /// placed at the same instant (the judges tell a call's pushes from an earlier call's by time).
    func stepBegins() {
        embedded?.passes(0.001)
    }

    /// Waits until the wall clock reaches `wall`.
    func pause(until wall: Double) { pause(wall - self.wall) }

    var connectionsAccepted: UInt64 { embedded?.connectionsAccepted ?? assembly.server.connectionsAccepted }

    var url: String { embedded?.url ?? assembly.url }

    var port: UInt16 { embedded == nil ? assembly.server.port : EmbeddedMock.port }
}
