import APNs
import Foundation
import Provider

/// bench/provider.sh: N VoIP pushes from the reference provider's clients — libcurl's (`curl`, one
/// connection or more, streams multiplexed on each) or the nghttp2 session of the built-in provider
/// (`nghttp2`, `BulkSender`, as many connections) — printing pushes per second, failures and CPU per push.
let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[3]) else {
    print(
        "usage: ProviderBench URL CA_FILE COUNT CERTS_DIR [BATCH] [CONNECTIONS] [curl|nghttp2] [STREAMS_PER_CONNECTION|keep]"
    )
    exit(64)
}
// Pushes handed to the client per call; the client keeps 100 streams in flight within a call.
let batch = arguments.count > 5 ? Int(arguments[5]) ?? 10000 : 10000
let certs = arguments[4]
let connections = arguments.count > 6 ? Int(arguments[6]) ?? 1 : 1
let clientName = arguments.count > 7 ? arguments[7] : "curl"
let configuration = ClientConfiguration(
    url: arguments[1], caFile: arguments[2],
    authentication: .token(keyFile: certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01"),
    connections: connections)
let send: ([OutgoingPush]) throws -> [PushAnswer]
let opened: () -> Int
let signed: () -> Int
let resendNote: String
switch clientName {
case "curl":
    // libcurl's connection is let go after this many streams (`APNsClient`); `keep`: never.
    var streamsPerConnection: Int? = 900
    if arguments.count > 8 {
        guard arguments[8] == "keep" || Int(arguments[8]).map({ $0 > 0 }) == true else {
            print("streams per connection is a positive number or keep, not <\(arguments[8])>")
            exit(64)
        }
        streamsPerConnection = Int(arguments[8])
    }
    let client = try APNsClient(configuration: configuration, streamsPerConnection: streamsPerConnection)
    send = { try client.send($0) }
    opened = { client.connectionsOpened }
    signed = { client.signedTokens }
    resendNote = "sent again on a fresh connection (libcurl 7.88)"
case "nghttp2":
    let client = try BulkSender(configuration: configuration)
    send = { try client.send($0) }
    opened = { client.connectionsOpened }
    signed = { client.signedTokens }
    resendNote = "sent again on a new connection"
default:
    print("the client is curl or nghttp2, not <\(clientName)>")
    exit(64)
}
let token = String(repeating: "ab", count: 32)
/// Sends `count` pushes in batches; returns how many failed and how many were sent again. A
/// function, not top-level code: main.swift's globals are the main actor's, and every access
/// checked the executor (callgrind: about 1,800 instructions a push that no provider spends).
nonisolated func sendAll(
    _ count: Int, batch: Int, token: String, send: ([OutgoingPush]) throws -> [PushAnswer]
) throws -> (failed: Int, resent: Int) {
    var ids = MessageIdGenerator()
    var sent = 0
    var failed = 0
    var resent = 0
    while sent < count {
        let size = min(batch, count - sent)
        let pushes = (0..<size).map { index in
            OutgoingPush.voip(
                token: token, bundleId: "com.ringside.testapp", callUUID: "call-\(sent + index)", caller: "alice",
                apnsId: ids.next())
        }
        let answers = try send(pushes)
        failed += answers.count { $0.status != 200 }
        resent += answers.count { $0.attempts > 1 }
        sent += size
    }
    return (failed, resent)
}
let start = Date()
let (failed, resent) = try sendAll(count, batch: batch, token: token, send: send)
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
            "provider (%@): %d pushes in %.2f s, %.0f pushes/s, %d failed, %d %@, %d connection(s), %d JWT signed, client CPU %.1f µs/push",
        clientName, count, seconds, Double(count) / seconds, failed, resent, resendNote, opened(), signed(),
        cpu / Double(count) * 1_000_000))
