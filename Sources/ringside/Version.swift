import HTTP2Server
import Provider

/// Ringside's version: scripts/package.sh names the release tarball after it.
let ringsideVersion = "0.9.0"

/// `ringside --version`: this version and those of the C libraries it runs with.
enum VersionCommand {
    static var text: String {
        """
        ringside \(ringsideVersion)
        nghttp2 \(LinkedLibraries.nghttp2)
        OpenSSL \(LinkedLibraries.openSSL)
        libcurl \(CurlLibrary.version)
        """
    }
}
