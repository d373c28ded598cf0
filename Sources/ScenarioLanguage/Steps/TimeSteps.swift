/// The steps that let time pass or run a command: the world clock, real time, a one-off command.
enum TimeSteps {
    /// Real time a `wait` may take: a scenario is a test, not a soak.
    static let longestWait = 60.0

    static let kinds: [StepKind] = [
        StepKind("advance", "<duration>", "the world clock moves on (JWTs age, stored pushes expire)") {
            $0.duration($1.argument, key: "advance").map { .advance(seconds: $0) }
        },
        StepKind("wait", "<duration>", "real time passes") {
            $0.duration($1.argument, key: "wait", atMost: longestWait).map { .wait(seconds: $0) }
        },
        StepKind(
            "exec", "<command>", "a command runs once, to its end, with the provider contract in its environment"
        ) { .exec($0.template($1.argument, key: "exec", place: .execStep)) },
    ]
}
