import CCurl
import Foundation

/// One plain HTTP/1.1 request with libcurl: how the runner drives an `http` provider's own API.
public enum HTTPCall {
    public struct Response: Sendable {
        public var status: Int
        public var body: String
        public var error: String?
    }

    public static func perform(method: String, url: String, body: String?, timeout: Double = 10) -> Response {
        guard let handle = curl_easy_init() else {
            return Response(status: 0, body: "", error: "curl_easy_init failed")
        }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink()
        _ = ringside_curl_setopt_string(handle, CURLOPT_URL, url)
        _ = ringside_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method)
        _ = ringside_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        if let body {
            headers = curl_slist_append(headers, "content-type: application/json")
            _ = ringside_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
            _ = ringside_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, body)
        }
        _ = ringside_curl_setopt_write_function(handle, collect)
        _ = ringside_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
        let code = curl_easy_perform(handle)
        var status = 0
        _ = ringside_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let error = code == CURLE_OK ? nil : String(cString: curl_easy_strerror(code))
        return Response(status: status, body: String(decoding: sink.bytes, as: UTF8.self), error: error)
    }

    /// Keeps at most `limit` bytes of a body: a service streaming gigabytes must not exhaust memory.
    final class Sink {
        var bytes: [UInt8] = []
        static let limit = 64 * 1024
    }
}

private let collect: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, userData in
    let sink = Unmanaged<HTTPCall.Sink>.fromOpaque(userData!).takeUnretainedValue()
    let room = max(0, HTTPCall.Sink.limit - sink.bytes.count)
    data?.withMemoryRebound(to: UInt8.self, capacity: size * count) {
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(room, size * count)))
    }
    return size * count
}
