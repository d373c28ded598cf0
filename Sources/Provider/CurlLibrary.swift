import CCurl

/// The libcurl this binary runs with, for `ringside --version` (CURLVERSION_NOW is a macro Swift
/// cannot read: it names CURLVERSION_ELEVENTH in 7.88).
public enum CurlLibrary {
    public static var version: String {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH) else { return "unknown" }
        return String(cString: info.pointee.version)
    }
}
