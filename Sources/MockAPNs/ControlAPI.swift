import APNs
import Foundation
import HTTP2Server
import Synchronization
import World

/// The control API: JSON over HTTP on loopback, beside the mock, for test suites in any language
/// (WireMock's admin API is the model). Documented with tested curl examples in docs/control-api.md.
/// Unchecked Sendable: its `let`s are thread-safe types; `requiredToken` is set once by `MockAssembly.init`
/// before the control server starts, and only read afterwards.
public final class ControlAPI: HTTP2Service, @unchecked Sendable {
    let mock: MockAPNs
    let world: SharedWorld
    let clock: any AdvanceableClock
    let transcript: TranscriptBuffer
    public init(mock: MockAPNs, world: SharedWorld, clock: any AdvanceableClock, transcript: TranscriptBuffer) {
        self.mock = mock
        self.world = world
        self.clock = clock
        self.transcript = transcript
    }

    /// When set, only requests with `authorization: Bearer <token>` are answered (set before serving).
    public var requiredToken: String?

    /// Sends the console's test push (`POST /console/send`): set by `serve`, which knows its own
    /// address and credentials, before serving; without it the route answers 404.
    public var testPush: (@Sendable (_ body: [UInt8]) -> (status: Int, json: String))?

    /// The console's feed, made and added to the mock's observers the first time the console is
    /// opened (ConsoleFeed.swift).
    private let consoleFeed = Mutex<ConsoleFeed?>(nil)

    var console: ConsoleFeed {
        consoleFeed.withLock { feed in
            if let feed { return feed }
            let made = ConsoleFeed()
            mock.addObserver(made)
            feed = made
            return made
        }
    }

    /// The largest request body the control API reads.
    public static let maximumBody = 1 << 20
    /// Bytes one connection's unfinished requests may hold: a few whole bodies at once.
    public static let maximumHeldPerConnection = 8 << 20
    /// Control connections open at once; one more is closed at once.
    public static let maximumConnections = 256
    /// Seconds a control connection may stay idle before it is closed.
    public static let idleTimeout = 300.0
    /// With a control token: seconds a connection may stay open before its first authenticated request.
    public static let untrustedTimeout = 3.0

    public func open(_ connection: ConnectionInfo) -> any HTTP2ConnectionHandler { ControlConnection(api: self) }
    public func refused(peer: String, why: String) {}

    /// A route's answer: status and a JSON value.
    /// Unchecked Sendable: its `Any` JSON is created and consumed on one connection's thread, never shared.
    struct Answer: Error, @unchecked Sendable {
        var status: Int
        var json: Any
        /// Header fields beside content-type (a listing's paging).
        var headers: [(String, String)] = []

        static func error(_ status: Int, _ message: String) -> Answer {
            Answer(status: status, json: ["error": message])
        }

        /// The JSON as sent.
        var body: [UInt8] {
            if let raw = json as? RawJSON { return Array(raw.text.utf8) }
            return (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])).map(Array.init) ?? []
        }
    }

    /// One request's status and JSON body, without the transport (the control API's fuzz target).
    public func respond(method: String, path: String, body: [UInt8]) -> (status: Int, body: [UInt8]) {
        let answer = route(method: method, path: path, body: body)
        return (answer.status, answer.body)
    }

    /// Loads a world file: `{"settings": {…}, "phones": [{"name", "online", "apps": [...]}, …]}`, the
    /// same shapes as `POST /settings` and `POST /phones`. Returns an error message or nil.
    public func load(worldFile data: Data) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return "the world file is not a JSON object"
        }
        if let settings = object["settings"] {
            guard let body = try? JSONSerialization.data(withJSONObject: settings) else { return "bad settings" }
            let answer = route(method: "POST", path: "/settings", body: Array(body))
            if answer.status >= 400 { return "settings: \(answer.json)" }
        }
        for (index, phone) in (object["phones"] as? [Any] ?? []).enumerated() {
            guard let body = try? JSONSerialization.data(withJSONObject: phone) else {
                return "phone \(index) is not an object"
            }
            let answer = route(method: "POST", path: "/phones", body: Array(body))
            if answer.status >= 400 { return "phone \(index): \(answer.json)" }
        }
        return nil
    }

    func route(method: String, path: String, body: [UInt8]) -> Answer {
        // The path before any query, split strictly: `//phones`, `/health/` and the like are no routes.
        let pathPart = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let query = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first ?? ""
        var parts = pathPart.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == "", parts.count >= 2, !parts.dropFirst().contains("") else {
            return .error(404, "no route \(method) \(path.prefix(200)); see docs/control-api.md")
        }
        parts.removeFirst()
        let input: [String: Any]
        if body.isEmpty {
            input = [:]
        } else if let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] {
            input = object
        } else {
            return .error(400, "the body is not a JSON object")
        }
        let now = clock.now().world
        world.withWorld { $0.run(until: now) }
        switch (method, parts) {
        case ("GET", ["health"]): return Answer(status: 200, json: ["status": "ok"])
        case ("GET", ["clock"]): return Answer(status: 200, json: clockJSON())
        case ("POST", ["clock", "advance"]):
            guard let seconds = try? Self.seconds(input, "seconds", in: 0...SystemClock.maximumOffset),
                clock.advance(by: seconds)
            else {
                return .error(
                    400,
                    "give {\"seconds\": N}, a number ≥ 0; the world may run at most \(Int(SystemClock.maximumOffset)) s ahead of the wall clock"
                )
            }
            world.withWorld { $0.run(until: clock.now().world) }
            return Answer(status: 200, json: clockJSON())
        case ("GET", ["phones"]):
            return listPhones(query: query)
        case ("POST", ["phones"]): return addPhone(input, at: now)
        case ("GET", _) where parts.count == 2 && parts[0] == "phones":
            return withPhone(parts[1]) { w, index in Answer(status: 200, json: Self.phoneJSON(w.phones[index])) }
        case ("POST", _) where parts.count == 3 && parts[0] == "phones" && parts[2] == "state":
            return changeState(parts[1], input, at: now)
        case ("POST", _) where parts.count == 3 && parts[0] == "phones" && parts[2] == "apps":
            return installApp(parts[1], input, at: now)
        case ("POST", _) where parts.count == 5 && parts[0] == "phones" && parts[2] == "apps":
            let (id, bundle, event) = (parts[1], parts[3], parts[4])
            guard let appEvent = World.AppEvent(rawValue: event) else {
                return .error(
                    404,
                    "unknown app event <\(event)>; events are \(World.AppEvent.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return withPhone(id) { w, index in
                guard w.phones[index].app(bundle) != nil else {
                    return .error(404, "phone \(index) has no app <\(bundle)>")
                }
                w.apply(appEvent, phone: index, bundleId: bundle, at: now)
                return Answer(status: 200, json: Self.phoneJSON(w.phones[index]))
            }
        case ("GET", ["outcomes"]):
            return listed(query: query, route: "/outcomes", total: world.withWorld { $0.rememberedCount }) { range in
                // Copied under the world's lock, rendered outside it: pushes are not held up.
                world.withWorld { $0.remembered(range) }.map(Self.fateJSON)
            }
        case ("GET", ["transcript"]):
            return listed(query: query, route: "/transcript", total: transcript.count) { range in
                transcript.kept(range).map(TranscriptWriter.render)
            }
        case ("POST", ["faults"]): return armFault(input)
        case ("DELETE", ["faults"]):
            mock.disarmFaults()
            return Answer(status: 200, json: ["faults": 0])
        case ("GET", ["settings"]): return Answer(status: 200, json: settingsJSON())
        case ("POST", ["settings"]):
            if let problem = Self.unknownKey(input, Array(settingsJSON().keys) + ["throttle"]) { return problem }
            guard let data = try? JSONSerialization.data(withJSONObject: merge(settingsJSON(), input)),
                let settings = try? JSONDecoder().decode(WorldSettings.self, from: data)
            else { return .error(400, "not world settings; GET /settings shows their shape") }
            if let problem = settings.problem { return .error(400, problem) }
            world.reset(settings: settings)
            return Answer(status: 200, json: settingsJSON())
        case ("POST", ["reset"]):
            world.reset()
            transcript.clear()
            return Answer(status: 200, json: ["reset": true])
        default:
            return .error(404, "no route \(method) \(path.prefix(200)); see docs/control-api.md")
        }
    }

    /// `POST /faults`: `{"reason": R, "count": N}` answers with a reason; `"action"` is one of
    /// `FaultSpec.Action` (docs/control-api.md). `token`, `connection`, `from` and `until` (world
    /// time) narrow which requests a fault matches. Read into the same `FaultSpec` as a scenario's
    /// `fault:` step and armed the same way.
    private func armFault(_ input: [String: Any]) -> Answer {
        switch Self.faultSpec(input) {
        case .failure(let answer): return answer
        case .success(let spec):
            if let problem = mock.arm(spec) { return .error(409, problem) }
            var echo = input
            echo["armed"] = true
            return Answer(status: 201, json: echo)
        }
    }

    /// Reads a fault from JSON; every number is checked against its range.
    static func faultSpec(_ input: [String: Any]) -> Result<FaultSpec, Answer> {
        let actions = FaultSpec.Action.allCases.map(\.rawValue)
        let actionName = input["action"].map { $0 as? String ?? "" } ?? FaultSpec.Action.answer.rawValue
        guard let action = FaultSpec.Action(rawValue: actionName) else {
            return .failure(
                .error(400, "unknown action <\(actionName)>; actions are \(actions.joined(separator: ", "))"))
        }
        let keys: [String]
        switch action {
        case .answer: keys = ["reason", "count"]
        case .drop: keys = ["count"]
        case .delay: keys = ["seconds", "count"]
        case .goaway: keys = ["afterAccepted", "reason"]
        case .staleConnections: keys = ["idleSeconds"]
        case .holdSettings: keys = ["seconds"]
        case .lowerStreamsAfterRejection, .untrustedServerCertificate: keys = ["on"]
        }
        let matchKeys = action.isPerRequest ? ["token", "connection", "from", "until"] : []
        let known = ["action"] + keys + matchKeys
        if let unknown = input.keys.sorted().first(where: { !known.contains($0) }) {
            let near = didYouMean(unknown, among: known).map { "; did you mean <\($0)>?" } ?? ""
            return .failure(
                .error(
                    400,
                    "<\(unknown.prefix(64))> does not apply to \(action.rawValue); it takes \(known.joined(separator: ", "))\(near)"
                )
            )
        }
        do {
            let reason = try input["reason"].map { value -> Reason in
                guard let text = value as? String, let reason = Reason(wire: text) else {
                    throw Answer.error(400, "unknown reason <\(value)>; see `ringside explain`")
                }
                return reason
            }
            let count = try integer(input, "count", in: FaultSpec.counts) ?? 1
            let match = FaultSpec.Match(
                deviceToken: try string(input, "token"),
                connection: try integer(input, "connection", in: 0...Int(Int32.max)).map { UInt64($0) },
                from: try seconds(input, "from", in: 0...1e11), until: try seconds(input, "until", in: 0...1e11))
            let on = try boolean(input, "on")
            let kind: FaultSpec.Kind
            switch action {
            case .answer:
                guard let reason else { throw Answer.error(400, "give {\"reason\": <an APNs reason>, \"count\": N}") }
                kind = .answer(reason)
            case .drop: kind = .drop
            case .delay:
                guard let delay = try seconds(input, "seconds", in: FaultSpec.seconds) else {
                    throw Answer.error(400, "delay needs \"seconds\"")
                }
                kind = .delay(seconds: delay)
            case .goaway:
                kind = .goAway(
                    afterAccepted: try integer(input, "afterAccepted", in: FaultSpec.counts) ?? 1,
                    reason: reason ?? .shutdown)
            case .staleConnections:
                guard let idle = try seconds(input, "idleSeconds", in: FaultSpec.seconds) else {
                    throw Answer.error(400, "stale-connections needs \"idleSeconds\"")
                }
                kind = .staleConnections(idleSeconds: idle)
            case .holdSettings:
                guard let hold = try seconds(input, "seconds", in: FaultSpec.heldSettings) else {
                    throw Answer.error(400, "hold-settings needs \"seconds\" (0 switches it off)")
                }
                kind = .holdSettings(seconds: hold)
            case .lowerStreamsAfterRejection: kind = .lowerStreamsAfterRejection(on: on ?? true)
            case .untrustedServerCertificate: kind = .untrustedServerCertificate(on: on ?? true)
            }
            return .success(FaultSpec(kind, count: count, match: match))
        } catch let answer as Answer {
            return .failure(answer)
        } catch {
            return .failure(.error(400, "\(error)"))
        }
    }

    /// A whole number in range; a JSON number only (not a string, not 1.5).
    static func integer(_ input: [String: Any], _ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = input[key] else { return nil }
        guard let number = value as? NSNumber, let double = Double(exactly: number.doubleValue),
            double.rounded() == double, double >= Double(range.lowerBound), double <= Double(range.upperBound)
        else {
            throw Answer.error(400, "<\(key)> takes a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(double)
    }

    /// Seconds in range; a finite JSON number only.
    static func seconds(_ input: [String: Any], _ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value = input[key] else { return nil }
        guard let number = value as? NSNumber, number.doubleValue.isFinite,
            range.contains(number.doubleValue)
        else {
            throw Answer.error(
                400, "<\(key)> takes a number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return number.doubleValue
    }

    static func string(_ input: [String: Any], _ key: String) throws -> String? {
        guard let value = input[key] else { return nil }
        guard let text = value as? String else { throw Answer.error(400, "<\(key)> takes a string") }
        return text
    }

    private func clockJSON() -> [String: Any] {
        let now = clock.now()
        return ["worldTime": now.world, "wallTime": now.wall, "offsetSeconds": now.world - now.wall]
    }

    private func settingsJSON() -> [String: Any] {
        let data = (try? JSONEncoder().encode(world.settings)) ?? Data("{}".utf8)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    private func merge(_ base: [String: Any], _ changes: [String: Any]) -> [String: Any] {
        var result = base
        for (key, value) in changes {
            if let nested = value as? [String: Any], let current = base[key] as? [String: Any] {
                result[key] = merge(current, nested)
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// One to nine ASCII digits, nothing else (no sign, no spaces, no leading zero: `/phones/00` is
    /// not phone 0), as a number; nil otherwise.
    static func plainNumber(_ text: Substring) -> Int? {
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
            text == "0" || text.first != "0"
        else { return nil }
        return Int(text)
    }

    private func withPhone(_ id: String, _ body: (World, Int) -> Answer) -> Answer {
        guard let index = Self.plainNumber(id[...]) else {
            return .error(404, "phone ids are numbers, got <\(id.prefix(64))>")
        }
        return world.withWorld { w in
            guard w.phones.indices.contains(index) else { return .error(404, "no phone \(index)") }
            return body(w, index)
        }
    }

    /// Reads the app descriptions of `POST /phones` and `POST /phones/{id}/apps` through
    /// `AppDescription` (World/AppDescription.swift), as the checker reads a scenario's `apps:`:
    /// the same keys, ranges and rules, in the JSON's spelling.
    private func appSpecs(_ apps: [[String: Any]]) -> Result<[AppSpec], Answer> {
        guard apps.count <= VirtualPhone.maximumApps else {
            return .failure(.error(400, "a phone holds at most \(VirtualPhone.maximumApps) apps"))
        }
        var specs: [AppSpec] = []
        for app in apps {
            // Every key is read, or refused: a typo must not fall back to a default silently.
            if let problem = Self.unknownKey(app, AppKey.allCases.map(\.jsonKey)) { return .failure(problem) }
            var values: [AppKey: AppValue] = [:]
            do {
                for key in AppKey.allCases where app[key.jsonKey] != nil {
                    switch key.takes {
                    case .seconds(let most):
                        values[key] = .seconds(try Self.seconds(app, key.jsonKey, in: 0...most)!)
                    case .boolean: values[key] = .boolean(try Self.boolean(app, key.jsonKey)!)
                    case .text, .version, .word: values[key] = .text(try Self.string(app, key.jsonKey)!)
                    }
                }
            } catch let answer as Answer {
                return .failure(answer)
            } catch {
                return .failure(.error(400, "\(error)"))
            }
            let (spec, problems) = AppDescription.spec(
                values, environment: mock.configuration.validation.environment, spelling: \.jsonKey)
            if let problem = problems.first {
                return .failure(
                    .error(400, problem.message + (problem.suggestion.map { "; did you mean <\($0)>?" } ?? "")))
            }
            specs.append(spec!)
        }
        return .success(specs)
    }

    private func addPhone(_ input: [String: Any], at now: Double) -> Answer {
        if let problem = Self.unknownKey(input, ["name", "online", "apps"]) { return problem }
        if input["apps"] != nil, !(input["apps"] is [[String: Any]]) {
            return .error(400, "<apps> takes a list of objects, each with a bundleId")
        }
        let specs: [AppSpec]
        switch appSpecs(input["apps"] as? [[String: Any]] ?? [["bundleId": "com.ringside.testapp"]]) {
        case .failure(let answer): return answer
        case .success(let value): specs = value
        }
        let name: String
        let online: Bool
        do {
            name = try Self.string(input, "name") ?? "phone"
            online = try Self.boolean(input, "online") ?? true
        } catch let answer as Answer {
            return answer
        } catch {
            return .error(400, "\(error)")
        }
        return world.withWorld { w in
            let id = w.addPhone(name: name, online: online, apps: specs, at: now)
            return Answer(status: 201, json: Self.phoneJSON(w.phones[id]))
        }
    }

    private func installApp(_ id: String, _ input: [String: Any], at now: Double) -> Answer {
        let specs: [AppSpec]
        switch appSpecs([input]) {
        case .failure(let answer): return answer
        case .success(let value): specs = value
        }
        return withPhone(id) { w, index in
            for spec in specs where !w.install(spec, phone: index, at: now) {
                return .error(
                    409, "phone \(index) already holds \(VirtualPhone.maximumApps) apps, the most a phone may")
            }
            return Answer(status: 201, json: Self.phoneJSON(w.phones[index]))
        }
    }

    private func changeState(_ id: String, _ input: [String: Any], at now: Double) -> Answer {
        // Everything is read before anything changes: a bad request changes nothing.
        var changes: [World.PhoneChange] = []
        do {
            if let problem = Self.unknownKey(
                input, ["online", "doNotDisturb", "blockedCallers", "vipCallers", "activeCall"])
            {
                return problem
            }
            if let online = try Self.boolean(input, "online") { changes.append(.online(online)) }
            if let dnd = try Self.boolean(input, "doNotDisturb") { changes.append(.doNotDisturb(dnd)) }
            for key in ["blockedCallers", "vipCallers"] where input[key] != nil {
                guard let names = input[key] as? [String] else {
                    throw Answer.error(400, "<\(key)> takes a list of names")
                }
                changes.append(key == "vipCallers" ? .vipCallers(Set(names)) : .blockedCallers(Set(names)))
            }
            if let call = input["activeCall"] {
                guard call is NSNull || call is String else {
                    throw Answer.error(400, "<activeCall> takes a caller's name, or null")
                }
                changes.append(.activeCall(call as? String))
            }
        } catch let answer as Answer {
            return answer
        } catch {
            return .error(400, "\(error)")
        }
        return withPhone(id) { w, index in
            for change in changes { w.change(phone: index, change, at: now) }
            return Answer(status: 200, json: Self.phoneJSON(w.phones[index]))
        }
    }

    /// Phones are listed a page at a time (`offset`, `limit` ≤ 1000): a world of a million phones
    /// must not hold the world's lock, or the control API's thread, for the time a whole list takes.
    static let pageLimit = 1000
    /// Apps in one page of `GET /phones` at most (a phone may hold 1,000): the page ends before, so
    /// that one listing holds the control thread a fraction of a second.
    static let pageApps = 2_000

    /// `offset=N&limit=N` of a listing; a missing offset is nil (each listing says what it means).
    private static func page(_ query: Substring, route: String) -> Result<(offset: Int?, limit: Int?), Answer> {
        var offset: Int?
        var limit: Int?
        for item in query.isEmpty ? [] : query.split(separator: "&", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = pair.count == 2 ? plainNumber(pair[1]) : nil
            switch pair[0] {
            case "offset" where value != nil && offset == nil: offset = value
            case "limit" where value.map({ (1...pageLimit).contains($0) }) == true && limit == nil: limit = value
            default:
                return .failure(
                    .error(
                        400,
                        "GET \(route) takes offset=N (≥ 0) and limit=N (1 to \(pageLimit)), each once; got <\(item.prefix(64))>"
                    ))
            }
        }
        return .success((offset, limit))
    }

    /// A page of a listing that answers a JSON array (`/outcomes`, `/transcript`): `limit` items (at most
    /// and by default 1000) from `offset`, or the newest `limit` without one, so `[-1]` is the latest.
    /// `x-total-count` says how many there are, `link` where the next and previous pages are.
    private func listed(query: Substring, route: String, total: Int, render: (Range<Int>) -> [String]) -> Answer {
        let page: (offset: Int?, limit: Int?)
        switch Self.page(query, route: route) {
        case .failure(let answer): return answer
        case .success(let value): page = value
        }
        let limit = page.limit ?? Self.pageLimit
        let start = min(page.offset ?? max(0, total - limit), total)
        let range = start..<min(total, start + limit)
        var links: [String] = []
        if range.upperBound < total {
            links.append("<\(route)?offset=\(range.upperBound)&limit=\(limit)>; rel=\"next\"")
        }
        if start > 0 { links.append("<\(route)?offset=\(max(0, start - limit))&limit=\(limit)>; rel=\"prev\"") }
        var headers = [("x-total-count", String(total))]
        if !links.isEmpty { headers.append(("link", links.joined(separator: ", "))) }
        return Answer(status: 200, json: RawJSON("[" + render(range).joined(separator: ",") + "]"), headers: headers)
    }

    private func listPhones(query: Substring) -> Answer {
        let offset: Int
        let limit: Int
        switch Self.page(query, route: "/phones") {
        case .failure(let answer): return answer
        case .success(let page): (offset, limit) = (page.offset ?? 0, page.limit ?? 100)
        }
        // Copied under the world's lock, a page at most `pageApps` apps large; rendered outside it.
        let (start, phones, total) = world.withWorld { w in
            let start = min(offset, w.phones.count)
            var end = start
            var apps = 0
            while end < min(w.phones.count, start + limit),
                end == start || apps + w.phones[end].apps.count <= Self.pageApps
            {
                apps += w.phones[end].apps.count
                end += 1
            }
            return (start, Array(w.phones[start..<end]), w.phones.count)
        }
        let end = start + phones.count
        let next = end < total ? "/phones?offset=\(end)&limit=\(limit)" : nil
        return Answer(
            status: 200,
            json: [
                "phones": phones.map(Self.phoneJSON), "total": total, "next": next as Any? ?? NSNull(),
            ] as [String: Any])
    }

    /// A 400 naming the first key that is not one of `known`, or nil.
    /// A key the route does not read, refused with the nearest it does (as the checker does).
    static func unknownKey(_ input: [String: Any], _ known: [String]) -> Answer? {
        guard let unknown = input.keys.sorted().first(where: { !known.contains($0) }) else { return nil }
        let near = didYouMean(unknown, among: known).map { "did you mean <\($0)>? " } ?? ""
        return .error(
            400,
            "<\(unknown.prefix(64))> is not one of \(known.joined(separator: ", ")); \(near)see docs/control-api.md")
    }

    static func phoneJSON(_ phone: VirtualPhone) -> [String: Any] {
        [
            "id": phone.id, "name": phone.name, "online": phone.isOnline, "doNotDisturb": phone.doNotDisturb,
            "blockedCallers": phone.blockedCallers.sorted(), "vipCallers": phone.vipCallers.sorted(),
            "activeCall": phone.activeCall as Any? ?? NSNull(),
            "apps": phone.apps.map { app in
                [
                    "bundleId": app.bundleId, "ios": app.ios.description, "behaviour": app.behaviour.name,
                    "environment": app.environment.rawValue, "voipToken": app.voipToken.description,
                    "alertToken": app.alertToken.description, "foreground": app.isForeground,
                    "unreportedKills": app.unreportedKills, "voipBlocked": app.isVoIPBlocked,
                    "entitled": app.isEntitled, "forceQuit": app.isForceQuit, "loggedIn": app.isLoggedIn,
                ] as [String: Any]
            },
        ]
    }

    static func fateJSON(_ fate: PushFate) -> String {
        var line = JSONLine()
        TranscriptWriter.outcomeFields(&line, fate)
        return line.finish()
    }

    static func boolean(_ input: [String: Any], _ key: String) throws -> Bool? {
        guard let value = input[key] else { return nil }
        // JSON numbers bridge to Bool too (1 as? Bool is true): only true and false, boxed as
        // __NSCFBoolean by JSONSerialization, are booleans here.
        guard let flag = value as? Bool, "\(type(of: value))".contains("Boolean") else {
            throw Answer.error(400, "<\(key)> takes true or false")
        }
        return flag
    }
}

/// JSON already rendered, passed through unchanged.
struct RawJSON {
    let text: String
    init(_ text: String) { self.text = text }
}

/// One control-API connection: every request answered at once.
final class ControlConnection: HTTP2ConnectionHandler {
    let api: ControlAPI
    init(api: ControlAPI) { self.api = api }

    /// A harness needs few requests at once; each open one may hold a 1 MiB body or a large answer.
    var initialMaxConcurrentStreams: UInt32 { 16 }

    func handle(_ request: HTTP2Request, connection: ConnectionControl) {
        var method = "GET"
        var path = "/"
        var authorization: String?
        var origin: String?
        var authority: String?
        var fromBrowser = false
        request.forEachField { name, value in
            if name.elementsEqual(":method".utf8) { method = String(decoding: value, as: UTF8.self) }
            if name.elementsEqual(":path".utf8) { path = String(decoding: value, as: UTF8.self) }
            if name.elementsEqual("authorization".utf8) { authorization = String(decoding: value, as: UTF8.self) }
            if name.elementsEqual("origin".utf8) { origin = String(decoding: value, as: UTF8.self) }
            if name.elementsEqual("host".utf8) || name.elementsEqual(":authority".utf8) {
                authority = String(decoding: value, as: UTF8.self)
            }
            if name.starts(with: "sec-fetch-".utf8) { fromBrowser = true }
        }
        if let refusal = Self.browserRefusal(
            origin: origin, authority: authority, fromBrowser: fromBrowser, tokenRequired: api.requiredToken != nil)
        {
            let answer = ControlAPI.Answer.error(403, refusal)
            connection.respond(
                streamId: request.streamId,
                HTTP2Response(status: 403, headers: [("content-type", "application/json")], body: answer.body + [10]))
            connection.close()
            return
        }
        if method == "GET", path == "/console" || path.hasPrefix("/console?") {
            return servePage(path, connection: connection, streamId: request.streamId)
        }
        let answer: ControlAPI.Answer
        let refused = api.requiredToken.map { !ControlToken.matches(authorization, $0) } ?? false
        if refused {
            answer = .error(401, "this control API needs `authorization: Bearer <RINGSIDE_CONTROL_TOKEN>`")
        } else if request.bodyLength > request.body.count {
            answer = .error(413, "the body is larger than \(ControlAPI.maximumBody) bytes")
        } else if method == "GET", path == "/console/events" || path.hasPrefix("/console/events?") {
            // Trusted before it streams: the untrusted timeout would cut a stream that was the
            // connection's first request.
            connection.trust()
            let after = path.split(separator: "?", maxSplits: 1).dropFirst().first?.split(separator: "&")
                .first { $0.hasPrefix("after=") }.flatMap { ControlAPI.plainNumber($0.dropFirst(6)) }
            return ConsoleStream.start(api.console, on: connection, streamId: request.streamId, after: after ?? 0)
        } else if method == "POST", path == "/console/send" {
            let sent: (status: Int, json: String) =
                api.testPush?(request.body) ?? (404, #"{"error":"this control API sends no test push"}"#)
            answer = ControlAPI.Answer(status: sent.status, json: RawJSON(sent.json))
        } else {
            answer = api.route(method: method, path: path, body: request.body)
        }
        let body = answer.body
        connection.respond(
            streamId: request.streamId,
            HTTP2Response(
                status: answer.status, headers: [("content-type", "application/json")] + answer.headers,
                body: body + [10]))
        // An unauthenticated client holds no slot: answered 401 and closed; an authenticated one is
        // trusted, and only the idle timeout applies to it (MockAssembly sets `untrustedTimeout`).
        if refused { connection.close() } else { connection.trust() }
    }

    /// Why a request a browser made for another site is refused: the console opens the control API
    /// to browsers, and a page elsewhere could otherwise post to it (a fault, a reset) or, through a
    /// name that resolves to loopback, read it. A request with an `Origin` must come from the API's
    /// own address; without a token, a browser's request (it sent `Sec-Fetch-*`) must ask for an IP
    /// literal or `localhost`.
    static func browserRefusal(origin: String?, authority: String?, fromBrowser: Bool, tokenRequired: Bool) -> String? {
        if let origin, origin != "http://" + (authority ?? "") {
            return
                "a request from the page of another site (Origin <\(OutsideText.visible(String(origin.prefix(100))))>) is refused"
        }
        guard fromBrowser, !tokenRequired, let authority else { return nil }
        var host = Substring(authority)
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<end]
            let isAddress = !host.isEmpty && host.allSatisfy { $0 == ":" || $0 == "." || $0.isHexDigit }
            return isAddress
                ? nil : "the host <\(OutsideText.visible(String(authority.prefix(100))))> is not an address"
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        let isIPv4 =
            host.split(separator: ".", omittingEmptySubsequences: false).count == 4
            && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
        return isIPv4 || host == "localhost"
            ? nil
            : "without a control token only a loopback address is served (host <\(OutsideText.visible(String(authority.prefix(100))))>): "
                + "a name could be made to resolve here"
    }

    /// The console's page: with a control token, only for a link that carries it (`?token=`, as
    /// `serve` prints it); the page then sends it as every request does, in a header.
    private func servePage(_ path: String, connection: ConnectionControl, streamId: Int32) {
        let query = path.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        let given = query.split(separator: "&").first { $0.hasPrefix("token=") }.map {
            String($0.dropFirst(6)).removingPercentEncoding ?? ""
        }
        if let required = api.requiredToken, !ControlToken.matches(given.map { "Bearer " + $0 }, required) {
            connection.respond(
                streamId: streamId,
                HTTP2Response(
                    status: 401, headers: [("content-type", "text/plain; charset=utf-8")],
                    body: Array("open the console with the link `ringside serve` printed (RINGSIDE_CONSOLE_URL)\n".utf8)
                ))
            connection.close()
            return
        }
        let nonce = ControlToken.make()
        connection.respond(
            streamId: streamId,
            HTTP2Response(
                status: 200, headers: ConsolePage.headers(nonce: nonce),
                body: Array(ConsolePage.html(nonce: nonce).utf8)))
        if api.requiredToken != nil { connection.trust() }
    }

    func idleGoAwayDebugData() -> [UInt8] { [] }
    func closed(why: String) {}
    func refusedStream(_ streamId: Int32, _ why: StreamRefusal) {}
}

/// The console's live feed on one connection: Server-Sent Events, written a quarter of a second
/// apart on the connection's own thread (`ConnectionControl.after`); the delivery metrics every
/// 2 s, a comment every 15 s to keep proxies from closing it. A page that stops reading is let go.
final class ConsoleStream {
    private let feed: ConsoleFeed
    private let connection: ConnectionControl
    private var after = 0
    private var ticks = 0

    private init(feed: ConsoleFeed, connection: ConnectionControl) {
        self.feed = feed
        self.connection = connection
    }

    /// `after`: the number of the last event the page has (it reconnects from there, and is told
    /// of what it missed meanwhile), 0 for all that is kept.
    static func start(_ feed: ConsoleFeed, on connection: ConnectionControl, streamId: Int32, after: Int) {
        let headers = [("content-type", "text/event-stream"), ("cache-control", "no-store")]
        guard connection.beginStream(status: 200, headers: headers) else {
            connection.respond(
                streamId: streamId,
                HTTP2Response(
                    status: 400, headers: [("content-type", "application/json")],
                    body: Array(#"{"error":"the console's events are served over HTTP/1.1 (a browser's fetch)"}"#.utf8)
                        + [10]))
            return
        }
        let stream = ConsoleStream(feed: feed, connection: connection)
        stream.after = after
        stream.tick()
    }

    private func tick() {
        var text = ticks == 0 ? "retry: 1000\n\n" : ""
        let (events, missed) = feed.events(after: after)
        if missed > 0 { text += "event: missed\ndata: {\"count\":\(missed)}\n\n" }
        for event in events {
            let name = event.json.hasPrefix(#"{"type":"push""#) ? "push" : "outcome"
            text += "id: \(event.number)\nevent: \(name)\ndata: \(event.json)\n\n"
            after = event.number
        }
        if ticks % 8 == 0 { text += "event: metrics\ndata: \(feed.metricsJSON())\n\n" }
        if text.isEmpty, ticks % 60 == 0 { text = ": still here\n\n" }
        ticks += 1
        if !text.isEmpty, !connection.stream(Array(text.utf8)) {
            connection.close()
            return
        }
        connection.after(0.25) { [self] in tick() }
    }
}

/// The control API's token: drawn from the system's CSPRNG and compared in constant time (issue 27).
public enum ControlToken {
    /// 32 random bytes as hex, from `SystemRandomNumberGenerator` (getrandom(2)).
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether `authorization` is `Bearer <token>` (the scheme in any case), comparing every byte
    /// whatever the first difference, so that timing tells nothing of the token.
    public static func matches(_ authorization: String?, _ token: String) -> Bool {
        guard let authorization, authorization.utf8.count == 7 + token.utf8.count,
            authorization.prefix(7).lowercased() == "bearer "
        else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(authorization.utf8.dropFirst(7), token.utf8) { difference |= a ^ b }
        return difference == 0
    }
}
