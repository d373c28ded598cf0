import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

@testable import Provider

/// The bulk sender drives its connections from the caller's thread (`HTTP2ClientConnection
/// .exchange(together:)`), waiting on their sockets with `poll`, as h2load does: a thread a
/// connection competed with the mock for a shared machine's cores.
@Suite struct BulkSenderTogetherTests {
    /// The threads that read or wrote, and how many times. Unchecked Sendable: behind `lock`.
    final class Threads: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: Set<UInt> = []
        private var noted = 0
        static var current: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }
        func note() {
            lock.lock()
            seen.insert(Self.current)
            noted += 1
            lock.unlock()
        }
        var count: Int { all.count }
        var calls: Int {
            lock.lock()
            defer { lock.unlock() }
            return noted
        }
        var all: Set<UInt> {
            lock.lock()
            defer { lock.unlock() }
            return seen
        }
    }

    /// A TCP wire that notes the thread of every read and write.
    final class WatchedWire: Wire, @unchecked Sendable {
        let inner: TCPWire
        let threads: Threads
        init(_ inner: TCPWire, threads: Threads) {
            self.inner = inner
            self.threads = threads
        }
        private func note() { threads.note() }
        func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
            note()
            return inner.send(bytes)
        }
        func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            note()
            return inner.receive(into: buffer)
        }
        var descriptor: Int32? { inner.descriptor }
    }

    static func configuration(_ server: MockServer, connections: Int, timeout: Double = 10)
        -> (ClientConfiguration, Threads)
    {
        let threads = Threads()
        var configuration = ClientConfiguration(
            url: server.url, caFile: Paths.ca,
            authentication: .token(
                keyFile: Paths.certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01"),
            timeout: timeout, connections: connections)
        configuration.dial = { host, port, timeout in
            TCPWire(host: host, port: port, timeout: timeout).map { WatchedWire($0, threads: threads) }
        }
        return (configuration, threads)
    }

    @Test("3 connections: 900 pushes over exactly 3, every read and write on the caller's thread, answers in order")
    func oneThreadThreeConnections() throws {
        let server = try MockServer()
        let (configuration, threads) = Self.configuration(server, connections: 3)
        let sender = try BulkSender(configuration: configuration)
        let pushes = OutgoingPush.voipBatch(900, seed: 21)
        let answers = try sender.send(pushes)
        #expect(answers.allSatisfy { $0.status == 200 && $0.attempts == 1 }, "\(Set(answers.map(\.status)))")
        // APNs echoes a well-formed apns-id: each answer belongs to the push at its index.
        #expect(answers.map(\.apnsId) == pushes.map(\.sentApnsId))
        #expect(Set(answers.map(\.connection)) == [1], "each lane's first connection")
        #expect(sender.connectionsOpened == 3)
        #expect(Set(server.events.pushes.map(\.connection)).count == 3)
        #expect(threads.all == [Threads.current], "reads and writes on \(threads.all.count) threads")
    }

    @Test("A connection that goes silent fails its own pushes when the wait times out; the other's are answered")
    func silentConnectionTimesOut() throws {
        let server = try MockServer()
        // The second connection's pushes go unanswered (the mock numbers connections from 1).
        _ = server.mock.arm(FaultSpec(.drop, count: 1000, match: FaultSpec.Match(connection: 2)))
        let (configuration, _) = Self.configuration(server, connections: 2, timeout: 0.5)
        let sender = try BulkSender(configuration: configuration, attempts: 1)
        let answers = try sender.send(OutgoingPush.voipBatch(200, seed: 22))
        #expect(answers.prefix(100).allSatisfy { $0.status == 200 }, "\(Set(answers.prefix(100).map(\.status)))")
        #expect(
            answers.suffix(100).allSatisfy { $0.status == 0 && $0.failure == .connectionBroke("no answer in time") },
            "\(answers.suffix(100).first.map { "\($0)" } ?? "")")
    }

    @Test("Each connection keeps its own timeout: a late lane fails while the other keeps reading")
    func eachLaneItsOwnTimeout() throws {
        let server = try MockServer()
        // Connection 1 answers over 2.5 s, 0.1 s apart: never 0.3 s without a read.
        for step in 1...25 {
            _ = server.mock.arm(
                FaultSpec(.delay(seconds: 0.1 * Double(step)), count: 20, match: FaultSpec.Match(connection: 1)))
        }
        _ = server.mock.arm(FaultSpec(.delay(seconds: 2), count: 500, match: FaultSpec.Match(connection: 2)))
        let (configuration, _) = Self.configuration(server, connections: 2, timeout: 0.3)
        let sender = try BulkSender(configuration: configuration, attempts: 1)
        let answers = try sender.send(OutgoingPush.voipBatch(1000, seed: 24))
        #expect(
            answers.suffix(500).allSatisfy { $0.status == 0 && $0.failure == .connectionBroke("no answer in time") },
            "\(answers.suffix(500).first.map { "\($0)" } ?? "")")
    }

    /// A TCP wire whose answers stop in the middle of a TLS record once the client has sent
    /// `after` bytes: a network that stalls under one connection. What arrives is passed on through
    /// a socket pair, whose end the client polls and reads.
    final class StallingWire: Wire, @unchecked Sendable {
        let inner: TCPWire
        let ends: (client: Int32, pump: Int32)
        let sent = Threads()  // for its lock
        nonisolated(unsafe) var sentBytes = 0
        init(_ inner: TCPWire, timeout: Double, after: Int) {
            self.inner = inner
            var pair: [Int32] = [0, 0]
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair)
            ends = (pair[0], pair[1])
            var limit = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - timeout.rounded(.down)) * 1_000_000))
            setsockopt(ends.client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let pump = ends.pump
            nonisolated(unsafe) let wire = inner
            let owner = self
            Thread.detachNewThread {
                var pending: [UInt8] = []
                var stalled = false
                var chunk = [UInt8](repeating: 0, count: 16_384)
                while true {
                    let count = chunk.withUnsafeMutableBytes { wire.receive(into: $0) }
                    if count <= 0 { break }
                    if stalled { continue }
                    pending += chunk[..<count]
                    // Whole records go on; once the client has sent enough, half of the next, then nothing.
                    var start = 0
                    while pending.count - start >= 5 {
                        let length = 5 + (Int(pending[start + 3]) << 8 | Int(pending[start + 4]))
                        if owner.sentTotal > after {
                            _ = pending[..<(start + min(length, pending.count - start) / 2)].withUnsafeBytes {
                                Foundation.send(pump, $0.baseAddress, $0.count, 0)
                            }
                            stalled = true
                            break
                        }
                        if pending.count - start < length { break }
                        start += length
                    }
                    if stalled { continue }
                    _ = pending[..<start].withUnsafeBytes { Foundation.send(pump, $0.baseAddress, $0.count, 0) }
                    pending.removeFirst(start)
                }
                close(pump)
            }
        }
        var sentTotal: Int {
            sent.note()
            return sentBytes
        }
        deinit { close(ends.client) }
        func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
            sentBytes += bytes.count
            return inner.send(bytes)
        }
        func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            recv(ends.client, buffer.baseAddress, buffer.count, 0)
        }
        var descriptor: Int32? { ends.client }
    }

    @Test("A connection stalled inside a TLS record does not hold up the other: its answers are read in time")
    func stalledLaneAlone() throws {
        let server = try MockServer()
        _ = server.mock.arm(FaultSpec(.delay(seconds: 0.3), count: 200, match: FaultSpec.Match(connection: 1)))
        var (configuration, _) = Self.configuration(server, connections: 2, timeout: 1)
        let dialed = Threads()
        configuration.dial = { host, port, timeout in
            dialed.note()
            guard let wire = TCPWire(host: host, port: port, timeout: timeout) else { return nil }
            // The second connection (the second lane) stalls once its first requests are out.
            return dialed.count == 1 && dialed.calls == 2
                ? StallingWire(wire, timeout: timeout, after: 3000) : WatchedWire(wire, threads: Threads())
        }
        let sender = try BulkSender(configuration: configuration, attempts: 1)
        let answers = try sender.send(OutgoingPush.voipBatch(800, seed: 25))
        #expect(
            answers.prefix(400).allSatisfy { $0.status == 200 },
            "\(answers.prefix(400).filter { $0.status != 200 }.count) of the first lane's 400 not answered 200: \(answers.prefix(400).first { $0.status != 200 }.map { "\($0)" } ?? "")"
        )
        #expect(answers.suffix(400).contains { $0.status == 0 }, "the stalled lane failed")
    }

    @Test("Wires with nothing to wait on (the mock in memory) are read in turn: 2 connections, 400 pushes")
    func inMemoryWires() throws {
        let mock = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
        var configuration = mock.clientConfiguration()
        configuration.connections = 2
        let sender = try BulkSender(configuration: configuration)
        let pushes = OutgoingPush.voipBatch(400, seed: 23)
        let answers = try sender.send(pushes)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(Set(answers.map(\.status)))")
        #expect(answers.map(\.apnsId) == pushes.map(\.sentApnsId))
        #expect(sender.connectionsOpened == 2)
    }
}
