import APNs
import Foundation
import Provider

/// bench/provider.sh: N VoIP pushes from the reference provider's libcurl client over one connection
/// or more (streams multiplexed on each), printing pushes per second, failures and CPU per push.
let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[3]) else {
    print("usage: ProviderBench URL CA_FILE COUNT CERTS_DIR [BATCH] [CONNECTIONS]")
    exit(64)
}
// Pushes handed to the client per call; the client keeps 100 streams in flight within a call.
let batch = arguments.count > 5 ? Int(arguments[5]) ?? 10000 : 10000
let certs = arguments[4]
let connections = arguments.count > 6 ? Int(arguments[6]) ?? 1 : 1
let client = try APNsClient(
    configuration: ClientConfiguration(
        url: arguments[1], caFile: arguments[2],
        authentication: .token(keyFile: certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01"),
        connections: connections))
let token = String(repeating: "ab", count: 32)
var ids = MessageIdGenerator()
var sent = 0
var failed = 0
var resent = 0
let start = Date()
while sent < count {
    let size = min(batch, count - sent)
    let pushes = (0..<size).map { index in
        OutgoingPush.voip(
            token: token, bundleId: "com.ringside.testapp", callUUID: "call-\(sent + index)", caller: "alice",
            apnsId: ids.next())
    }
    let answers = try client.send(pushes)
    failed += answers.filter { $0.status != 200 }.count
    resent += answers.filter { $0.attempts > 1 }.count
    sent += size
}
let seconds = Date().timeIntervalSince(start)
// The client's own CPU per push (user + system): what bounds it when libcurl is the cost.
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let cpu =
    Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
print(
    String(
        format:
            "provider: %d pushes in %.2f s, %.0f pushes/s, %d failed, %d sent again on a fresh connection (libcurl 7.88), %d connection(s), %d JWT signed, client CPU %.1f µs/push",
        count, seconds, Double(count) / seconds, failed, resent, client.connectionsOpened, client.signedTokens,
        cpu / Double(count) * 1_000_000))
