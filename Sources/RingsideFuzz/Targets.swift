import APNs
import Foundation
import HTTP2Server
import MockAPNs
import ScenarioLanguage
import World

/// What the fuzzer feeds: one function per input surface that takes bytes from outside (issue 11).
/// Each must return for every input — no trap, no hang, no unbounded memory — whatever it answers.
enum Target: String, CaseIterable {
    /// The HTTP/2 engine, bytes in as a client would send them (with or without the preface).
    case http2
    /// The validation pipeline: request headers and body from the bytes, with a valid or a fuzzed JWT.
    case request
    /// A provider token: parsing and verification.
    case jwt
    /// A client certificate's DER: the APNs extensions reader.
    case certificate
    /// The scenario language: parser and checker.
    case scenario
    /// The control API: `METHOD /path` on the first line, the JSON body after it.
    case control
    /// A transcript as `ringside replay` reads it.
    case transcript
    /// A push's payload as the world reads it for the call it announces (`CallInfo`).
    case payload
    /// Outside text as Ringside writes it (OutsideText, issue 27): the property is that what comes
    /// out reads back to the same text and holds no raw control byte, in every output kind.
    case escape

    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .http2: Self.http2(bytes)
        case .request: Self.request(bytes)
        case .jwt: Self.jwt(bytes)
        case .certificate: _ = try? ClientCertificate(der: Array(bytes))
        case .scenario:
            _ = Checker.plan(SourceFile(path: "fuzz.ring", text: String(decoding: bytes, as: UTF8.self)))
        case .control: Self.control(bytes)
        case .transcript: _ = ReplayPlan.parse(transcript: String(decoding: bytes, as: UTF8.self))
        case .payload: _ = CallInfo(body: Array(bytes))
        case .escape: Self.escape(bytes)
        }
    }

    static func escape(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let shown = OutsideText.visible(text)
        guard OutsideText.readBack(shown) == text else { fatalError("visible does not read back: \(shown)") }
        for scalar in shown.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
            fatalError("a raw control byte \(scalar.value) in \(shown)")
        }
        let data = OutsideText.workflowData(shown)
        guard !data.contains("\n"), !data.contains("\r") else { fatalError("a line break in workflow data") }
        let markup = OutsideText.markup(text)
        for scalar in markup.unicodeScalars
        where (scalar.value < 0x20 && scalar != "\n" && scalar != "\r" && scalar != "\t") || scalar == "<" {
            fatalError("markup lets \(scalar.value) through")
        }
    }

    // MARK: Shared fixtures, made once

    /// `certs-test/` beside the working directory, or `RINGSIDE_CERTS`.
    static let certs = ProcessInfo.processInfo.environment["RINGSIDE_CERTS"] ?? "certs-test"
    static let keys: KeyStore = {
        guard let keys = try? KeyStore.load(directory: certs) else { fatalError("no keys in \(certs)/keys.json") }
        return keys
    }()
    static let now = Date().timeIntervalSince1970
    /// A JWT the mock accepts, so that the checks after authentication are reached too.
    static let validJWT: String = {
        guard let pem = try? String(contentsOfFile: certs + "/AuthKey_RINGKEY001.p8", encoding: .utf8),
            let key = try? ES256Key(pem: pem),
            let jwt = try? ProviderToken.sign(keyId: "RINGKEY001", teamId: "RINGTEAM01", issuedAt: Int64(now), key: key)
        else { fatalError("cannot sign a JWT with \(certs)/AuthKey_RINGKEY001.p8") }
        return jwt
    }()
    static let validators = ValidationSettings.Profile.allCases.flatMap { profile in
        ValidationOrder.allCases.map {
            Validator(settings: ValidationSettings(profile: profile, order: $0), keys: keys)
        }
    }
    static let controlAPI: ControlAPI = {
        var options = MockOptions(certs: certs)
        options.controlPort = 0
        guard let assembly = try? MockAssembly(options), let control = assembly.control else {
            fatalError("cannot assemble a mock with \(certs)")
        }
        retained = assembly
        return control
    }()
    nonisolated(unsafe) static var retained: MockAssembly?

    // MARK: The targets

    static func http2(_ bytes: UnsafeRawBufferPointer) {
        final class Answering: HTTP2SessionDelegate {
            func session(_ session: HTTP2Session, didReceive request: HTTP2Request) {
                session.respond(streamId: request.streamId, HTTP2Response(status: 200, headers: [("apns-id", "x")]))
            }
            func session(_ session: HTTP2Session, refusedStream streamId: Int32, _ why: StreamRefusal) {}
        }
        guard let mode = bytes.first else { return }
        let delegate = Answering()
        let session = HTTP2Session(limits: HTTP2Limits(), initialMaxConcurrentStreams: mode & 1 == 0 ? 1 : 1000)
        session.delegate = delegate
        // The first byte is the mode. Bit 1 clear: the client preface and an empty SETTINGS come
        // first, so that the fuzzer's frames are read at all.
        if mode & 2 == 0 {
            let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
            preface.withUnsafeBytes { _ = session.receive($0) }
        }
        // In pieces, as reads split it: at every 0xFF 0xFE pair.
        let input = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        var start = input.startIndex
        for index in input.indices.dropLast() where input[index] == 0xFF && input[index + 1] == 0xFE {
            if !session.receive(UnsafeRawBufferPointer(rebasing: input[start..<index])) { return }
            _ = session.drainOutput { _ in }
            start = index + 2
        }
        _ = session.receive(UnsafeRawBufferPointer(rebasing: input[start...]))
        _ = session.drainOutput { _ in }
    }

    /// Lines of `name: value`; a blank line, then the body. The first byte picks the profile and
    /// order, and whether a valid JWT is added.
    static func request(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let parts = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
        var request = PushRequest()
        for line in parts[0].split(separator: "\n").prefix(64) {
            let field = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            // A leading colon is a pseudo-header (`:path`).
            if line.hasPrefix(":"), let colon = line.dropFirst().firstIndex(of: ":") {
                request.add(
                    name: String(line[..<colon]),
                    value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            } else if field.count == 2 {
                request.add(name: String(field[0]), value: String(field[1]).trimmingCharacters(in: .whitespaces))
            }
        }
        if first & 1 == 1 { request.add(name: "authorization", value: "bearer " + validJWT) }
        if parts.count == 2 {
            request.body = Array(parts[1].utf8)
            request.bodyLength = request.body.count
        }
        let validator = validators[Int(first >> 1) % validators.count]
        var credentials = ConnectionCredentials.token(TokenAuthentication())
        for offset in [0.0, 1, 1300, 4000] {
            _ = validator.validate(request, credentials: &credentials, at: Moment(now + offset))
        }
    }

    static func jwt(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = ProviderToken.parse(Substring(text))
        var state = TokenAuthentication()
        for authorization in ["bearer " + text, text, "bearer " + validJWT, "bearer " + text] {
            _ = state.authenticate(
                authorization: authorization, keys: keys, environment: .sandbox,
                environmentKeyReason: .badEnvironmentKeyInToken, at: Moment(now))
        }
    }

    static func control(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let request = parts[0].split(separator: " ", maxSplits: 1)
        guard request.count == 2 else { return }
        _ = controlAPI.respond(
            method: String(request[0]), path: String(request[1]), body: parts.count == 2 ? Array(parts[1].utf8) : [])
    }
}
