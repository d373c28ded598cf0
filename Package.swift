// swift-tools-version:6.0
// Targets are listed bottom-up: each may import only those above it (see README, "Modules", and
// docs/architecture.md).
import PackageDescription

let package = Package(
    name: "Ringside",
    products: [
        .executable(name: "ringside", targets: ["ringside"]),
        .library(name: "MockAPNs", targets: ["MockAPNs"]),
        .library(name: "APNs", targets: ["APNs"]),
        // For provider teams' Swift tests: a mock and a world in-process (examples/swift-testing).
        .library(name: "RingsideTesting", targets: ["RingsideTesting"]),
    ],
    targets: [
        // System libraries, each with a header of typed wrappers for what Swift cannot call
        // (function-like macros, variadic functions).
        .systemLibrary(
            name: "CNghttp2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // epoll and eventfd, which Swift's Glibc module does not export.
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),

        // The protocol as values and rules. No I/O but loading keys; the rules take the time as a Moment.
        .target(name: "APNs", dependencies: ["COpenSSL"]),
        // The simulation: phones, device tokens, delivery, the phone's rules, ring outcomes. No I/O; time
        // passed in.
        .target(name: "World", dependencies: ["APNs", "CLinux"]),
        // The scenario language: parser, checker, diagnostics. No I/O.
        .target(name: "ScenarioLanguage", dependencies: ["APNs", "World"]),
        // The reference provider (an nghttp2 client, its connection and answer policies, device-token
        // store, provider-token cache, naive profiles) and APNsClient on libcurl for `send` and benches.
        .target(name: "Provider", dependencies: ["APNs", "CCurl", "CNghttp2", "COpenSSL"]),
        // HTTP/2 engine (nghttp2), TLS (OpenSSL memory BIOs), and the epoll transport.
        .target(name: "HTTP2Server", dependencies: ["CNghttp2", "COpenSSL", "CLinux"]),
        // The fake APNs service.
        .target(name: "MockAPNs", dependencies: ["HTTP2Server", "APNs", "World", "CLinux"]),
        // Running a checked scenario: the mock, the world, the provider, the expectations.
        .target(
            name: "Scenario",
            dependencies: ["ScenarioLanguage", "MockAPNs", "Provider", "World", "APNs", "HTTP2Server", "CLinux"]),
        // Reports: renderers of scenario results.
        .target(
            name: "Reports", dependencies: ["Scenario", "ScenarioLanguage", "APNs", "MockAPNs", "Provider", "World"]),
        // A mock in-process for a provider's own Swift tests, on the same assembly as the CLI.
        .target(name: "RingsideTesting", dependencies: ["MockAPNs", "Scenario", "World", "APNs"]),
        // The command line.
        .executableTarget(
            name: "ringside",
            dependencies: [
                "MockAPNs", "APNs", "World", "HTTP2Server", "Provider", "ScenarioLanguage", "Scenario", "Reports",
                "CLinux",
            ]),
        // bench/world.sh: a million phones through the world and the mock.
        // bench/provider.sh: the reference provider's client against the mock.
        .executableTarget(name: "ProviderBench", dependencies: ["Provider", "APNs"]),
        .executableTarget(name: "WorldBench", dependencies: ["MockAPNs", "World", "APNs", "HTTP2Server"]),
        // scripts/fuzz.sh: libFuzzer targets for every surface that reads bytes from outside.
        .executableTarget(
            name: "RingsideFuzz", dependencies: ["APNs", "HTTP2Server", "MockAPNs", "ScenarioLanguage", "World"]),

        .testTarget(name: "APNsTests", dependencies: ["APNs"]),
        .testTarget(name: "WorldTests", dependencies: ["World", "APNs"]),
        .testTarget(name: "ScenarioLanguageTests", dependencies: ["ScenarioLanguage", "APNs", "World"]),
        // The fake APNs in memory (TestSupport's MemoryMock): its rules, world, faults and control API
        // through clients joined to the server's Connection on a ManualClock; and the connection's
        // state machine, requests in and actions out. No socket, thread or sleep.
        .testTarget(
            name: "MockAPNsUnitTests",
            dependencies: ["MockAPNs", "HTTP2Server", "APNs", "World", "CNghttp2", "TestSupport"]),
        // The built-in provider's policies, its client against the mock in memory (TLS included).
        .testTarget(
            name: "ProviderUnitTests", dependencies: ["Provider", "MockAPNs", "APNs", "CNghttp2", "TestSupport"]),
        // Judging and running scenarios without sockets: the judges are pure functions of recorded
        // events; scenarios whose only provider is the built-in one run on the mock in memory
        // (ScenarioTransport.memory, a manual clock).
        .testTarget(
            name: "ScenarioTests",
            dependencies: [
                "Scenario", "ScenarioLanguage", "MockAPNs", "APNs", "World", "Provider", "Reports", "TestSupport",
            ]),

        // What the tests share: MemoryMock (the mock in memory), and for the integration tests the
        // committed credentials' paths, a mock on a free port, curl, the h2 probe.
        .target(
            name: "TestSupport",
            dependencies: [
                "APNs", "HTTP2Server", "MockAPNs", "World", "Provider", "Scenario", "ScenarioLanguage", "CNghttp2",
            ],
            path: "Tests/TestSupport"),
        // Integration tests: real sockets, processes and third-party clients.
        // The fake APNs where only a socket shows it: ALPN, client certificates, the certificate fault,
        // idle timeouts, the control API's transport, real clients.
        .testTarget(
            name: "MockAPNsTests",
            dependencies: [
                "MockAPNs", "APNs", "HTTP2Server", "World", "Provider", "Scenario", "ScenarioLanguage", "CNghttp2",
                "TestSupport",
            ]),
        // The libcurl client `ringside send` uses, against the mock on loopback.
        .testTarget(
            name: "ProviderTests", dependencies: ["Provider", "MockAPNs", "APNs", "HTTP2Server", "TestSupport"]),
        // Scenarios whose provider or commands are processes (exec, http, `exec` steps), end to end on
        // loopback; those with the built-in provider alone run in memory in ScenarioTests.
        .testTarget(
            name: "ScenarioIntegrationTests",
            dependencies: [
                "Scenario", "ScenarioLanguage", "MockAPNs", "APNs", "World", "Provider", "Reports", "HTTP2Server",
                "TestSupport",
            ]),
        // The ringside binary as a user meets it: run, serve, explain, init, its reports and the docs'
        // examples; and RingsideTesting, the library a provider's own tests use.
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "MockAPNs", "APNs", "World", "Provider", "Scenario", "ScenarioLanguage", "Reports", "RingsideTesting",
                "HTTP2Server", "TestSupport", "ringside",
            ]),
        // The command line: each command's option table against its `--help` and its parser.
        .testTarget(name: "RingsideTests", dependencies: ["ringside"]),
    ],
    swiftLanguageModes: [.v6]
)
