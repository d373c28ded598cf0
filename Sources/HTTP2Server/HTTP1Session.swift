/// A minimal HTTP/1.1 server session for cleartext connections that do not open with the HTTP/2
/// preface: so that `curl` without flags can talk to a control API (RFC 9112, the subset a JSON API
/// needs: request line, header fields, Content-Length bodies, keep-alive).
final class HTTP1Session {
    private var buffer: [UInt8] = []
    private var nextStreamId: Int32 = 1
    /// Why the session cannot go on (a malformed request, a body over the limit); answered with
    /// `failureStatus` and closed.
    private(set) var failure: String?
    private(set) var failureStatus = 400
    let limits: HTTP2Limits

    init(limits: HTTP2Limits) { self.limits = limits }

    /// Keeps bytes from the client; `next()` takes the requests they complete, one at a time, so
    /// that the connection answers pipelined requests only as fast as the client reads the answers.
    func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete request, or nil until more bytes arrive (or after a failure).
    func next() -> HTTP2Request? {
        failure == nil ? parseOne() : nil
    }

    /// Where the unread bytes begin in `buffer` (consumed requests are dropped in bulk, not one by one).
    private var start = 0
    /// How far the search for the end of the header section has looked, so that a header trickled
    /// a byte at a time is not searched from its beginning each time.
    private var scanned = 0

    private func parseOne() -> HTTP2Request? {
        guard let end = headerEnd() else {
            if buffer.count - start > Int(limits.maxHeaderListSize) * 2 { failure = "request header section too large" }
            return nil
        }
        let head = String(decoding: buffer[start..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            failure = "not an HTTP/1.1 request line"
            return nil
        }
        var request = HTTP2Request(streamId: nextStreamId)
        var length = 0
        var lengths = 0
        for (name, value) in [(":method", String(requestLine[0])), (":path", String(requestLine[1]))] {
            request.appendField(name: name, value: value)
        }
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                failure = "a header line without a colon"
                return nil
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
            if name == "content-length" {
                // RFC 9110 §8.6: digits only (no sign, no list). A second Content-Length, even an equal
                // one, is refused (RFC 9112 §6.3: request smuggling starts with two lengths).
                lengths += 1
                let digits = (1...18).contains(value.utf8.count) && value.utf8.allSatisfy { (48...57).contains($0) }
                length = digits && lengths == 1 ? Int(value) ?? -1 : -1
            }
            if name == "transfer-encoding" {
                failure = "chunked bodies are not supported; send Content-Length"
                return nil
            }
            request.appendField(name: name, value: value)
        }
        guard length >= 0 else {
            failure = "bad Content-Length"
            return nil
        }
        guard length <= limits.maximumKeptBody else {
            failure = "the body is larger than \(limits.maximumKeptBody) bytes"
            failureStatus = 413
            return nil
        }
        guard buffer.count >= end + 4 + length else { return nil }
        request.body = Array(buffer[(end + 4)..<(end + 4 + length)])
        request.bodyLength = length
        start = end + 4 + length
        scanned = start
        nextStreamId += 2
        return request
    }

    /// Where the header section of the request at `start` ends (its CRLFCRLF), once it has arrived.
    private func headerEnd() -> Int? {
        scanned = max(scanned, start)
        guard buffer.count - scanned >= 4 else { return nil }
        for index in scanned...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        scanned = buffer.count - 3
        return nil
    }

    /// A response's status line and header fields, for a body of unknown length (streamed).
    static func head(status: Int, headers: [(String, String)]) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return Array((head + "\r\n").utf8)
    }

    /// The response as HTTP/1.1 bytes.
    static func serialize(_ response: HTTP2Response) -> [UInt8] {
        let body = response.body ?? []
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        for unique in [response.unique.first, response.unique.second].compactMap({ $0 }) {
            head += "\(unique.name): \(unique.value)\r\n"
        }
        head += "content-length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}

extension HTTP2Request {
    mutating func appendField(name: String, value: String) {
        var name = name
        var value = value
        name.withUTF8 { n in value.withUTF8 { v in appendField(name: n, value: v) } }
    }
}
