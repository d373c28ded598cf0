import CNghttp2
import COpenSSL

/// The versions of the C libraries this binary runs with (not built with): `ringside --version`
/// prints them, since a release links the system's nghttp2 and OpenSSL.
public enum LinkedLibraries {
    public static var nghttp2: String {
        guard let info = nghttp2_version(0) else { return "unknown" }
        return String(cString: info.pointee.version_str)
    }

    /// "OpenSSL 3.0.15 3 Sep 2024" → "3.0.15 3 Sep 2024".
    public static var openSSL: String {
        guard let text = OpenSSL_version(Int32(OPENSSL_VERSION)) else { return "unknown" }
        let full = String(cString: text)
        return full.hasPrefix("OpenSSL ") ? String(full.dropFirst(8)) : full
    }
}
