import APNs

/// The top-level keys of a scenario, declared once (`Schema`, `Keywords` and `explain` read them);
/// `Lowering.lower` (Checker.swift) reads them, each section through its block's lowering.
enum TopBlock {
    static let keys: [Option] = [
        Option("scenario", .text, "the scenario's name, as reports show it"),
        Option("teaches", .text, "a paragraph for newcomers: what the scenario shows, and why it matters"),
        Option(
            "obligation", .text,
            "a requirement's obligation of the provider under test, in its words (\"retries a 503 with back-off\"): the conformance summary's line"
        ),
        Option(
            "basis", .choice(Basis.allCases.map(\.rawValue)),
            "what the obligation rests on: apple (Apple documents it), practice, or folklore"),
        Option("seed", .text, "a number that fixes the world's tokens and the mock's apns-ids, so that runs repeat"),
        Option(
            "apns", .text, "the fake APNs: environment, validation profile, how the built-in provider authenticates"),
        Option("world", .text, "the world's numbers: delivery latency, ring timeout, throttle, storage"),
        Option("phones", .text, "the virtual phones, each with its apps"),
        Option(
            "provider", .text,
            "the provider under test: builtin: PROFILE, exec: COMMAND, or http: COMMAND with templates"),
        Option(
            "steps", .text,
            "what happens, in order: registrations, calls, phone and app events, faults, expectations"),
    ]
    static let required = ["scenario", "steps"]
}
