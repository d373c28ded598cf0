import APNs
import Foundation
import Glibc
import HTTP2Server
import MockAPNs
import World

/// bench/world.sh: registers a million phones, pushes through the world alone, then through the
/// mock (h2load against it, TLS, verified JWTs), and prints resident memory and the world's share.
func residentMegabytes(_ field: String = "VmRSS:") -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
    return (Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0) / 1024
}

/// The most the process was resident at any moment so far (the kernel's high-water mark).
func peakMegabytes() -> Double { residentMegabytes("VmHWM:") }

func seconds(_ body: () -> Void) -> Double {
    let start = Date()
    body()
    return Date().timeIntervalSince(start)
}

let arguments = CommandLine.arguments
let phoneCount = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let pushCount = arguments.count > 2 ? Int(arguments[2]) ?? 200_000 : 200_000
let certs = arguments.count > 3 ? arguments[3] : "certs-test"
let bundle = "com.ringside.testapp"

var settings = WorldSettings()
settings.throttle = nil  // h2load pushes to one token; throttling would answer 429
let shared = SharedWorld(settings: settings, seed: 1)
shared.withWorld { $0.keptPushes = MockOptions.keptByDefault }  // as `serve` keeps them
let start = Date().timeIntervalSince1970
var tokens: [String] = []
let baseline = residentMegabytes()
let registration = seconds {
    shared.withWorld { world in
        world.reserve(phones: phoneCount)
        for index in 0..<phoneCount {
            world.addPhone(name: "phone \(index)", apps: [AppSpec(bundleId: bundle)], at: start)
        }
        tokens = (0..<min(phoneCount, pushCount)).map { world.token(phone: $0, bundleId: bundle, kind: .voip)! }
    }
}
print(
    String(
        format: "registered %d phones in %.2f s; resident memory %.0f MB (%.0f MB before)", phoneCount, registration,
        residentMegabytes(), baseline))

// The world alone: lookup, accept, delivery and the phone's rules, for each push.
let body = Array(#"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}"#.utf8)
let topic = "\(bundle).voip"
let worldSeconds = seconds {
    shared.withWorld { world in
        for index in 0..<pushCount {
            let token = tokens[index % tokens.count]
            let now = start + Double(index) * 0.001
            _ = world.lookup(token: token, topic: topic, environment: .sandbox, at: now)
            let push = AcceptedPush(
                deviceToken: token, topic: topic, pushType: .voip, priority: .immediate, expiration: 0,
                collapseId: nil, keyId: "RINGKEY001", teamId: "RINGTEAM01", isFirstValidToken: false)
            world.accept(push, environment: .sandbox, body: body, apnsId: "bench", at: now)
            world.run(until: now)
            // Finished pushes are handed out as the mock's ticker does, a batch at a time: the world
            // then forgets the oldest beyond what it keeps (`MockOptions.kept`).
            if index % 1000 == 999 { _ = world.takeFinished() }
        }
        world.run(until: start + Double(pushCount))
        _ = world.takeFinished()
    }
}
let rang = shared.withWorld { $0.pushes.filter { $0.outcome.kind == "rang" }.count }
let worldMicros = worldSeconds / Double(pushCount) * 1e6
print(
    String(
        format: "world alone: %d pushes in %.2f s, %.0f pushes/s, %.2f µs each (%d rang); resident memory %.0f MB",
        pushCount, worldSeconds, Double(pushCount) / worldSeconds, worldMicros, rang, residentMegabytes()))

// The same world behind the mock, driven by h2load over the phones' tokens (one URI per phone).
var options = MockOptions(certs: certs)
options.world = shared
options.server.port = 0
let assembly = try MockAssembly(options)
let http2 = assembly.server
try assembly.start()
let key = try ES256Key(pem: String(contentsOfFile: certs + "/AuthKey_RINGKEY001.p8", encoding: .utf8))
let jwt = try ProviderToken.sign(
    keyId: "RINGKEY001", teamId: "RINGTEAM01", issuedAt: Int64(Date().timeIntervalSince1970), key: key)
let payload = NSTemporaryDirectory() + "ringside-bench-payload.json"
try Data(body).write(to: URL(fileURLWithPath: payload))
let uris = NSTemporaryDirectory() + "ringside-bench-uris.txt"
// Written a few thousand lines at a time: the whole list as one string would be the bench's own
// 40 MB, counted as the mock's in the resident figures.
_ = FileManager.default.createFile(atPath: uris, contents: nil)
let uriFile = try FileHandle(forWritingTo: URL(fileURLWithPath: uris))
for chunk in stride(from: 0, to: tokens.count, by: 4096) {
    let lines = tokens[chunk..<min(chunk + 4096, tokens.count)].map {
        "https://127.0.0.1:\(http2.port)/3/device/\($0)\n"
    }
    try uriFile.write(contentsOf: Data(lines.joined().utf8))
}
try uriFile.close()

/// CPU seconds this process has used (all threads).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

shared.measuresBusyTime = true
let cpuBefore = cpuSeconds()
let busyBefore = shared.busySeconds
let busyCPUBefore = shared.busyCPUSeconds
let tickerBefore = shared.tickerCPUSeconds
let h2load = Process()
h2load.executableURL = URL(fileURLWithPath: "/usr/bin/h2load")
h2load.arguments = [
    "-n", String(pushCount), "-c", "10", "-m", "10", "-d", payload, "-H", "authorization: bearer \(jwt)",
    "-H", "apns-topic: \(bundle).voip", "-H", "apns-push-type: voip", "-H", "apns-expiration: 0", "-i", uris,
]
let pipe = Pipe()
h2load.standardOutput = pipe
try h2load.run()
let output = String(decoding: pipe.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
h2load.waitUntilExit()
shared.withWorld { $0.run(until: assembly.worldClock.now().world + 1) }
let cpu = cpuSeconds() - cpuBefore
let busy = shared.busySeconds - busyBefore
let busyCPU = shared.busyCPUSeconds - busyCPUBefore
let ticker = shared.tickerCPUSeconds - tickerBefore
let rateLine = output.split(separator: "\n").first { $0.hasPrefix("finished in") } ?? ""
let statusLine = output.split(separator: "\n").first { $0.hasPrefix("status codes") } ?? ""
print(
    "through the mock (\(pushCount) pushes to \(tokens.count) phones): \(rateLine.trimmingCharacters(in: .whitespaces)); \(statusLine)"
)
let perPush = { (seconds: Double) in seconds / Double(pushCount) * 1e6 }
print(
    String(
        format: "inside the mock: %.2f µs of CPU per push, of which the world %.2f µs = %.1f%% "
            + "(lock held: the push's visit %.2f µs, the ticker's %.2f µs by its CPU clock; "
            + "by the wall clock alone %.2f µs = %.1f%%)",
        perPush(cpu), perPush(busyCPU), busyCPU / cpu * 100, perPush(busyCPU - ticker), perPush(ticker), perPush(busy),
        busy / cpu * 100))
print(
    String(
        format:
            "resident memory at the end: %.0f MB; at most, throughout: %.0f MB (target 400 MB for a million phones)",
        residentMegabytes(), peakMegabytes()))
assembly.stop()
