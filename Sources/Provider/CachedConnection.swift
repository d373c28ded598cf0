import APNs
import Foundation

/// How the built-in provider sends pushes: over one HTTP/2 connection at a time, which the connection
/// policy may retire (a new one is opened for the next send) or stop using altogether.
protocol PushTransport: AnyObject {
    /// Sends the pushes together on the current connection; answers come back in the same order,
    /// each with the number of the connection it went on.
    func send(_ pushes: [OutgoingPush]) throws -> [PushAnswer]
    /// APNs said `ExpiredProviderToken`: the next request carries a new JWT.
    func providerTokenExpired()
    /// Replace connection `number` before the next send (nothing if it is no longer the current one).
    func retire(_ number: Int)
    /// Send nothing more on this configuration; every later push fails with `why`.
    func stop(_ why: String)
    /// Opens the connection the next send takes and signs its JWT, now rather than at the first
    /// push (a load's lanes are all open before its first call); nothing once stopped.
    func connect() throws
    /// The JWT it holds, for another connection of the same provider to send (`ReferenceProvider.lanes`).
    var providerTokens: ProviderTokenCache? { get set }
    var signedTokens: Int { get }
    var connectionsOpened: Int { get }
}

/// The transport of every profile but `ignores-goaway`: a connection is used until it fails, gets
/// GOAWAY or is retired, then the next send opens a new one — unless the policy stopped it.
final class ConnectionKeeper: PushTransport {
    private let configuration: ClientConfiguration
    private let options: HTTP2ClientConnection.Options
    private var tokens: ProviderTokenCache?
    private var connection: HTTP2ClientConnection?
    private var stopped: String?
    private(set) var connectionsOpened = 0

    init(configuration: ClientConfiguration, options: HTTP2ClientConnection.Options) throws {
        self.configuration = configuration
        self.options = options
        tokens = try ProviderTokenCache.load(for: configuration.authentication)
    }

    var signedTokens: Int { tokens?.signed ?? 0 }

    func providerTokenExpired() { tokens?.expired() }

    func connect() throws { _ = try nextSend() }

    var providerTokens: ProviderTokenCache? {
        get { tokens }
        set { tokens = newValue }
    }

    func send(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        guard let (connection, authorization) = try nextSend() else { return stoppedAnswers(pushes.count) }
        return marked(connection.exchange(pushes, authorization: authorization))
    }

    /// The connection the next send goes on (a new one when the last cannot carry pushes) and the
    /// authorization it sends; nil once the policy stopped sending.
    func nextSend() throws -> (HTTP2ClientConnection, authorization: String?)? {
        if stopped != nil { return nil }
        if connection?.isUsable != true {
            connection = HTTP2ClientConnection(configuration: configuration, options: options)
            connectionsOpened += 1
        }
        return (connection!, try tokens?.authorization(at: configuration.now()))
    }

    /// What a send answers once the policy stopped sending.
    func stoppedAnswers(_ count: Int) -> [PushAnswer] {
        (0..<count).map { _ in PushAnswer(failure: .stopped(stopped ?? "stopped")) }
    }

    /// The answers of a send on the current connection, marked with its number.
    func marked(_ answers: [PushAnswer]) -> [PushAnswer] {
        // Marked in place: a mapped copy retained and released every field of every answer.
        var answers = answers
        for index in answers.indices { answers[index].connection = connectionsOpened }
        return answers
    }

    func retire(_ number: Int) {
        if number == connectionsOpened { connection = nil }
    }

    func stop(_ why: String) {
        stopped = why
        connection = nil
    }
}

/// The transport of the `ignores-goaway` profile (incident 1, scenarios/connections/08-goaway.ring):
/// one HTTP/2 connection, opened for the first push and never replaced, by a provider that watches
/// only for error answers.
///
/// After APNs's GOAWAY, nghttp2 refuses to open streams on the connection, and once APNs closes it
/// every push fails without an answer — until the provider restarts.
final class CachedConnection: PushTransport {
    private let configuration: ClientConfiguration
    private var tokens: ProviderTokenCache?
    private var connection: HTTP2ClientConnection?

    init(configuration: ClientConfiguration) throws {
        self.configuration = configuration
        tokens = try ProviderTokenCache.load(for: configuration.authentication)
    }

    var signedTokens: Int { tokens?.signed ?? 0 }
    var connectionsOpened: Int { connection == nil ? 0 : 1 }

    func connect() throws {
        if connection == nil { connection = HTTP2ClientConnection(configuration: configuration) }
        _ = try tokens?.token(at: configuration.now())
    }

    var providerTokens: ProviderTokenCache? {
        get { tokens }
        set { tokens = newValue }
    }

    func providerTokenExpired() { tokens?.expired() }

    func send(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        let connection = self.connection ?? HTTP2ClientConnection(configuration: configuration)
        self.connection = connection
        let authorization = try tokens?.authorization(at: configuration.now())
        return connection.exchange(pushes, authorization: authorization).map {
            var answer = $0
            answer.connection = 1
            return answer
        }
    }

    /// Never replaced, never stopped: that is the mistake.
    func retire(_ number: Int) {}
    func stop(_ why: String) {}
}
