import APNs
import Foundation
import Glibc
import HTTP2Server
import MockAPNs
import Scenario
import World

/// `ringside serve`: the fake APNs on a port, until Ctrl-C.
enum ServeCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let host = OptionSpec.text(
            "--host", "HOST",
            "Address to bind (default 127.0.0.1; anything else is reachable from other machines and is warned about)."
        )
        static let port = OptionSpec.number(
            "--port", "PORT", in: 0...65_535, "Port (default 2197, Apple's alternative port; 0 picks a free one).")
        static let profile = OptionSpec.choice(
            "--profile", "NAME", ValidationSettings.Profile.self,
            "apple (faithful, default) or voip-lint (also refuses a VoIP push whose topic lacks .voip, whose push type is not voip, whose priority is not 10 or whose expiration is not 0)."
        )
        static let auth = OptionSpec.choice(
            "--auth", "MODE", AuthenticationMode.self,
            "token, certificate or either (default): how providers authenticate.")
        static let environment = OptionSpec.choice(
            "--environment", "ENV", APNsEnvironment.self,
            "sandbox (default) or production: which token space and host this is.")
        static let plaintext = OptionSpec.flag(
            "--plaintext", "Serve cleartext HTTP/2 (h2c, prior knowledge) instead of TLS.")
        static let transcript = OptionSpec.text(
            "--transcript", "FILE",
            "Write every event as one JSON line, flushed per line; JWT signatures are redacted.")
        static let world = OptionSpec.text(
            "--world", "FILE",
            "Load phones, apps and world settings (JSON; docs/control-api.md). With a world, only tokens its phones hold are valid; without one, any well-formed token is accepted and reaches no phone."
        )
        static let controlPort = OptionSpec.number(
            "--control-port", "PORT", in: 0...65_535,
            "The control API's port (JSON over HTTP; default: the mock's port + 1, or a free one with --port 0). RINGSIDE_CONTROL_URL says where."
        )
        static let controlToken = OptionSpec.text(
            "--control-token", "TEXT",
            "The control API answers only requests with `authorization: Bearer TEXT`. With a --host other than loopback and no token, one is generated and printed as RINGSIDE_CONTROL_TOKEN."
        )
        static let order = OptionSpec.choice(
            "--order", "ORDER", ValidationOrder.self,
            "auth-first (default) or path-first (pushy's order): which checks run first; see docs/validation.md.")
        static let envKeyReason = OptionSpec.choice(
            "--env-key-reason", "R",
            [Reason.badEnvironmentKeyInToken.wire, Reason.badEnvironmentKeyIdInToken.wire],
            "BadEnvironmentKeyInToken (observed, default) or BadEnvironmentKeyIdInToken (Apple's spelling).")
        static let idleTimeout = OptionSpec.number(
            "--idle-timeout", "SECS", in: 1...31_536_000,
            "Close connections idle this long with GOAWAY IdleTimeout (default 3600).")
        static let handshakeTimeout = OptionSpec.number(
            "--handshake-timeout", "SECS", in: 1...3600,
            "Close TLS connections whose handshake has not finished (default 10).")
        static let maxConnections = OptionSpec.number(
            "--max-connections", "N", in: 1...1_000_000,
            "Connections open at once (default 10000); one more takes the place of the oldest that has not authenticated, or is closed at once and logged as refused."
        )
        static let resetLimit = OptionSpec.text(
            "--reset-limit", "B/R",
            "End a connection with GOAWAY INTERNAL_ERROR after a burst of B RST_STREAMs, refilled at R a second: nghttp2's rapid-reset protection, 1000/33 by its default (libcurl 7.88 resets every finished stream). Default: no limit, as Apple documents none."
        )
        static let seed = OptionSpec.number(
            "--seed", "N", in: OptionSpec.seeds, "Seed for generated apns-ids, so runs repeat.")
        static let workers = OptionSpec.number(
            "--workers", "N", in: 1...1024, "Event-loop threads (default: one per two cores, at least one).")
        static let keep = OptionSpec.number(
            "--keep", "N", in: 10...10_000_000,
            "How many of the latest pushes GET /outcomes remembers, and events GET /transcript shows (default 20000); --transcript FILE keeps every event."
        )
        static let quiet = OptionSpec.flag("--quiet", "No per-request lines on standard error.")
        static let tokenPrefix = OptionSpec.text(
            "--token-prefix", "HEX",
            "Every device token this mock issues starts with these hex digits (1 to 8): one mock of several owns a share of the phones, behind a proxy that routes /3/device/HEX… to it (docs/scaling.md)."
        )
    }

    static let spec = CommandSpec(
        "serve", abstract: "Run the fake APNs on a port (prints the provider contract, logs every request).",
        about: """
            Runs a fake APNs that real push providers talk to unmodified: HTTP/2 over TLS (ALPN h2 or prior
            knowledge), JWT or client-certificate authentication, every header checked as Apple documents.
            Prints the provider contract as KEY=value lines on standard output, then one line per request
            on standard error. Ctrl-C sends GOAWAY to every connection and exits 0.
            """,
        options: [
            Option.host, Option.port, Option.profile, Option.auth, Option.environment, Option.plaintext,
            Option.transcript, Option.world, Option.controlPort, Option.controlToken, Option.order, Option.envKeyReason,
            Option.idleTimeout, Option.handshakeTimeout, Option.maxConnections, Option.resetLimit, OptionSpec.certs,
            Option.seed, Option.workers, Option.keep, Option.quiet, Option.tokenPrefix,
        ],
        exitCodes: """
            Exit codes: 0 stopped by Ctrl-C or SIGTERM, 3 cannot serve (port busy, credentials missing),
            64 bad arguments.
            """)

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: spec)
        if arguments.help() {
            Output.out(spec.help)
            return ExitCode.success
        }
        let options: Options
        do {
            options = try Options(&arguments)
            try arguments.finish()
        } catch {
            Output.error("error: \(error.message)")
            return ExitCode.usage
        }
        return serve(options)
    }

    struct Options {
        var host = "127.0.0.1"
        var port: UInt16 = 2197
        var profile = ValidationSettings.Profile.apple
        var auth = AuthenticationMode.either
        var environment = APNsEnvironment.sandbox
        var plaintext = false
        var transcript: String?
        var order = ValidationOrder.authFirst
        var environmentKeyReason = Reason.badEnvironmentKeyInToken
        var idleTimeout: Double = 3600
        var handshakeTimeout: Double = 10
        var maximumConnections = 10_000
        var resetLimit: (burst: UInt64, perSecond: UInt64)?
        var certs: String?
        var seed: UInt64?
        var workers: Int?
        var kept = MockOptions.keptByDefault
        var quiet = false
        var worldFile: String?
        var controlPort: UInt16?
        var controlToken: String?
        var tokenPrefix: String?

        init(_ arguments: inout Arguments) throws(UsageError) {
            host = try arguments.value(Option.host) ?? host
            port = try arguments.number(Option.port, UInt16.self) ?? port
            profile = try arguments.choice(Option.profile, ValidationSettings.Profile.self) ?? profile
            auth = try arguments.choice(Option.auth, AuthenticationMode.self) ?? auth
            environment = try arguments.choice(Option.environment, APNsEnvironment.self) ?? environment
            plaintext = arguments.flag(Option.plaintext)
            transcript = try arguments.value(Option.transcript)
            order = try arguments.choice(Option.order, ValidationOrder.self) ?? order
            environmentKeyReason =
                try arguments.value(Option.envKeyReason).flatMap(Reason.init(wire:)) ?? environmentKeyReason
            idleTimeout = try arguments.number(Option.idleTimeout, Int.self).map(Double.init) ?? idleTimeout
            handshakeTimeout =
                try arguments.number(Option.handshakeTimeout, Int.self).map(Double.init) ?? handshakeTimeout
            maximumConnections = try arguments.number(Option.maxConnections, Int.self) ?? maximumConnections
            if let text = try arguments.value(Option.resetLimit) {
                let parts = text.split(separator: "/").compactMap { UInt64($0) }
                guard parts.count == 2, parts[0] > 0 else {
                    throw UsageError("--reset-limit wants BURST/RATE, e.g. 1000/33; got \(text)")
                }
                resetLimit = (parts[0], parts[1])
            }
            certs = try arguments.value(OptionSpec.certs)
            seed = try arguments.number(Option.seed, UInt64.self)
            workers = try arguments.number(Option.workers, Int.self)
            kept = try arguments.number(Option.keep, Int.self) ?? kept
            quiet = arguments.flag(Option.quiet)
            worldFile = try arguments.value(Option.world)
            controlPort = try arguments.number(Option.controlPort, UInt16.self)
            controlToken = try arguments.value(Option.controlToken)
            if let controlToken, controlToken.isEmpty || controlToken.contains(where: { $0.isWhitespace }) {
                throw UsageError("--control-token takes a word without spaces")
            }
            let written = try arguments.value(Option.tokenPrefix)
            tokenPrefix = written?.lowercased()
            if let tokenPrefix, let written,
                !WorldSettings.isTokenPrefix(tokenPrefix, bytes: WorldSettings().tokenBytes)
            {
                throw UsageError("--token-prefix takes 1 to 8 hex digits, got <\(written.prefix(64))>")
            }
            if plaintext, auth == .certificate {
                throw UsageError("--auth certificate needs TLS; drop --plaintext")
            }
        }
    }

    /// One event loop per two cores: the provider under test shares the machine (CI, a laptop), and
    /// a request costs it about what it costs the mock, so loops beyond half the cores only contend
    /// with it. On two cores one loop served 164,000–180,000 requests a second where two served
    /// 125,000–140,000 (h2load -c 10 -m 10 beside it; docs/scaling.md).
    static var defaultWorkers: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)) / 2) }

    static func serve(_ options: Options) -> Int32 {
        // Block SIGINT and SIGTERM first, before any thread starts and before the slow set-up (keys,
        // certificates): only `sigwait` below sees them, and a SIGTERM that comes during set-up stops
        // the server as soon as it is up instead of killing the process (exit 143).
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let found: String?
        do { found = try TestCredentials.directory(options.certs) } catch {
            Output.error("error: \(FileErrorText.describe(error))")
            return ExitCode.cannotProceed
        }
        guard let certs = found else {
            Output.error("error: cannot find certs-test/ (with keys.json); pass --certs DIR")
            return ExitCode.cannotProceed
        }
        var mockOptions = MockOptions(certs: certs)
        mockOptions.validation = ValidationSettings(
            profile: options.profile, order: options.order, environment: options.environment,
            environmentKeyReason: options.environmentKeyReason)
        mockOptions.authentication = options.auth
        mockOptions.seed = options.seed
        mockOptions.worldSettings.tokenPrefix = options.tokenPrefix
        mockOptions.acceptsUnknownTokens = options.worldFile == nil
        mockOptions.plaintext = options.plaintext
        mockOptions.server.host = options.host
        mockOptions.server.port = options.port
        mockOptions.server.idleTimeout = options.idleTimeout
        mockOptions.server.handshakeTimeout = options.handshakeTimeout
        mockOptions.server.maximumConnections = options.maximumConnections
        mockOptions.server.limits.streamResets = options.resetLimit
        mockOptions.server.workers = options.workers ?? Self.defaultWorkers
        mockOptions.kept = options.kept
        mockOptions.controlPort = options.controlPort ?? (options.port == 0 ? 0 : options.port &+ 1)
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(options.host)
        // Anyone who can reach the control API can reset the world and read the transcript.
        var options = options
        if options.controlToken == nil, !loopback {
            options.controlToken = ControlToken.make()
        }
        mockOptions.controlToken = options.controlToken
        // The soft open-file limit is 1,024 here while --max-connections defaults to 10,000: raise it
        // to the hard limit, and say so when even that cannot hold the connections allowed.
        let files = FileLimit.raiseToHard()
        let needed = UInt64(options.maximumConnections) + 64
        if files < needed {
            Output.error(
                "warning: the open-file limit is \(files), fewer than --max-connections \(options.maximumConnections) needs (about \(needed)): past it, a new connection takes the place of the oldest that has not authenticated, or is closed; raise the hard limit (ulimit -Hn)"
            )
        } else {
            Output.error(
                "ringside: open-file limit \(files), room for --max-connections \(options.maximumConnections)")
        }
        let assembly: MockAssembly
        do {
            assembly = try MockAssembly(mockOptions)
        } catch {
            Output.error("error: \(FileErrorText.describe(error))")
            return ExitCode.cannotProceed
        }
        if let file = options.worldFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                Output.error("error: cannot read the world file \(file)")
                return ExitCode.cannotProceed
            }
            if let problem = assembly.control?.load(worldFile: data) {
                Output.error("error: \(file): \(problem)")
                return ExitCode.cannotProceed
            }
        }
        // The console's test push goes to this mock's own port, on loopback whatever --host says.
        let server = assembly.server
        let scheme = options.plaintext ? "http" : "https"
        assembly.control?.testPush = { body in
            ConsoleSend.answer(body, url: "\(scheme)://127.0.0.1:\(server.port)", certs: certs)
        }
        if !options.quiet { assembly.mock.addObserver(RequestLog()) }
        if let path = options.transcript {
            do {
                assembly.mock.addObserver(try TranscriptWriter(path: path))
            } catch {
                Output.error("error: cannot write the transcript: \(FileErrorText.describe(error))")
                return ExitCode.cannotProceed
            }
        }

        do {
            try assembly.start()
        } catch {
            Output.error("error: \(FileErrorText.describe(error))")
            return ExitCode.cannotProceed
        }
        if !loopback {
            Output.error(
                "warning: listening on \(options.host): other machines can reach this fake APNs (whose test credentials are public) and its control API (which needs RINGSIDE_CONTROL_TOKEN)"
            )
        }
        printContract(
            options: options, port: assembly.server.port, controlPort: assembly.controlServer?.port ?? 0, certs: certs)

        var received: Int32 = 0
        sigwait(&signals, &received)
        if !options.quiet {
            Output.error(
                "ringside: \(received == SIGINT ? "interrupted" : "terminated"), sending GOAWAY to \(assembly.server.openConnections) connection(s)"
            )
        }
        assembly.stop(goAwayDebugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        return ExitCode.success
    }

    /// The provider contract (docs/architecture.md) as KEY=value lines, each value in single quotes when the shell
    /// would split or expand it (a certs folder under a path with a space), so that `source` reads it.
    static func printContract(options: Options, port: UInt16, controlPort: UInt16, certs: String) {
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        var variables = ProviderContract.variables(
            url: "\(options.plaintext ? "http" : "https")://\(host):\(port)", host: options.host, port: port,
            certs: certs)
        variables.insert(("APNS_ENVIRONMENT", options.environment.rawValue), at: 3)
        variables.append(("RINGSIDE_CONTROL_URL", "http://\(host):\(controlPort)"))
        if let token = options.controlToken { variables.append(("RINGSIDE_CONTROL_TOKEN", token)) }
        // The console's link carries the token when there is one: the page needs it (issue 49).
        let query = options.controlToken.map {
            "?token=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        variables.append(("RINGSIDE_CONSOLE_URL", "http://\(host):\(controlPort)/console" + (query ?? "")))
        let lines = variables.map { "\($0.name)=\(shellQuoted($0.value))" }
        Output.out(lines.joined(separator: "\n"))
    }
}

/// The process's open-file limit (RLIMIT_NOFILE).
enum FileLimit {
    /// Raises the soft limit to the hard one; returns the soft limit now.
    static func raiseToHard() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return UInt64(limit.rlim_cur)
    }
}
