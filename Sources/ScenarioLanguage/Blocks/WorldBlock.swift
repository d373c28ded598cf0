import APNs
import World

/// `world:` — the world's numbers: its keys, declared once (`Schema`, `Keywords` and `explain` read
/// them), and their lowering into `WorldSettings`.
enum WorldBlock {
    static let context = "<world>"
    static let keys: [Option] = [
        Option(
            "unregister-delay", .duration(atMost: longestDuration),
            "how long a retired token still answers 200 before 410"),
        Option(
            "unreported-limit", .number(1...1000),
            "unreported VoIP pushes before the system stops delivering to the app"),
        Option(
            "ring-timeout", .duration(atMost: longestDuration),
            "how long a caller waits: a phone that rings later rang late (a ghost call)"),
        Option("delivery-latency", .duration(atMost: 86_400), "how long a push takes from APNs to an online phone"),
        Option("throttle", .text, "N per DURATION to one token before 429 TooManyRequests, or off"),
        Option("accept-unknown-tokens", .boolean, "true: any well-formed token is accepted and reaches no phone"),
        Option(
            "keep-stored", .choice(WorldSettings.StoragePolicy.allCases.map(\.rawValue)),
            "latest (Apple) or oldest: which push APNs keeps for an offline phone"),
        Option(
            "wrong-pushes-delivered", .boolean,
            "true: a VoIP push at priority 5 or 1, or without apns-push-type, rings (default: the phone misses it)"),
    ]
}

extension Lowering {
    mutating func lowerWorld(_ node: Node) -> WorldSetup {
        var setup = WorldSetup()
        guard let mapping = mapping(node, key: "world") else { return setup }
        let block = open(mapping, keys: Schema.world, context: WorldBlock.context)
        if let seconds = duration(block, "unregister-delay") { setup.settings.unregisterDelay = seconds }
        if let limit = integer(block, "unreported-limit", in: 1...1000) { setup.settings.unreportedLimit = limit }
        if let policy = word(block, "keep-stored", WorldSettings.StoragePolicy.self) {
            setup.settings.keepStored = policy
        }
        if let scalar = scalar(block, "ring-timeout"), let seconds = duration(scalar, key: "ring-timeout") {
            if seconds > 0 {
                setup.settings.ringTimeout = seconds
            } else {
                report("Out of range", at: scalar.range, "<ring-timeout> must be longer than 0s")
            }
        }
        if let seconds = duration(block, "delivery-latency", atMost: 86_400) {
            setup.settings.deliveryLatency = seconds
        }
        if let scalar = scalar(block, "throttle") {
            if let rate = parseRate(scalar.text) {
                setup.settings.throttle =
                    rate.count == 0 ? nil : WorldSettings.Throttle(count: rate.count, window: rate.window)
            } else {
                report(
                    "Not a rate", at: scalar.range,
                    "<throttle> takes <N per DURATION> like <3 per 60s>, or <off>; got <\(clip(scalar.text))>")
            }
        }
        if let accepts = boolean(block, "accept-unknown-tokens") { setup.acceptsUnknownTokens = accepts }
        if let delivered = boolean(block, "wrong-pushes-delivered") { setup.settings.wrongPushesDelivered = delivered }
        return setup
    }
}
