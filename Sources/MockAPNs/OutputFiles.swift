import Foundation

/// Files Ringside writes (reports, transcripts, the starter folder), only where it is asked
/// (issue 27): never through a symbolic link a pull request could plant, never half-written.
public enum OutputFiles {
    /// Why a file was not written, in words, naming the file.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Refuses a path whose last component is a symbolic link. A trailing `/` is read without it:
    /// `lstat("link/")` follows the link (the adversary's `--transcript link/`, session 16).
    public static func refuseLink(_ path: String) throws {
        var status = stat()
        var bare = Substring(path)
        while bare.count > 1, bare.hasSuffix("/") { bare = bare.dropLast() }
        if lstat(String(bare), &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            throw Refused(
                description: "\(path) is a symbolic link; Ringside writes only where it is asked, never through a link")
        }
    }

    /// Links a user may name to write to the standard streams; a link anywhere else is refused.
    static let standardStreams: Set<String> = ["/dev/stdout", "/dev/stderr", "/dev/tty"]

    /// Whether `path` names a standard stream, whatever it is redirected to (`> out.txt` makes
    /// /dev/stdout a link to a regular file, which is written through as asked, at its end).
    static func isStandardStream(_ path: String) -> Bool {
        standardStreams.contains(path) || path.hasPrefix("/dev/fd/")
    }

    /// Whether `path` is an existing character device or pipe (`/dev/null`, a FIFO, `/dev/stdout`),
    /// which is written through in place: renaming a new file over it, as root, replaces the system's
    /// device with a regular file (issue 46). A block device or a socket is refused, and so is a
    /// link to a device other than the standard streams.
    public static func isDeviceOrPipe(_ path: String) throws -> Bool {
        var entry = stat()
        guard lstat(path, &entry) == 0 else { return false }
        let isLink = entry.st_mode & S_IFMT == S_IFLNK
        var target = entry
        if isLink, stat(path, &target) != 0 { return false }
        switch target.st_mode & S_IFMT {
        case S_IFCHR, S_IFIFO:
            if isLink, !standardStreams.contains(path), target.st_mode & S_IFMT != S_IFIFO {
                throw Refused(
                    description:
                        "\(path) is a symbolic link to a device; Ringside writes only where it is asked, never through a link"
                )
            }
            return true
        case S_IFBLK:
            throw Refused(description: "\(path) is a block device; Ringside never writes over a device")
        case S_IFSOCK:
            throw Refused(description: "\(path) is a socket; give a file, a pipe or /dev/stdout")
        default: return false
        }
    }

    /// The folder a path names a file in: `.` for a bare name, `/` for a file at the root. Not
    /// `NSString.deletingLastPathComponent`, which traps on a one-character path here (`--junit j`,
    /// `init x`: swift-corelibs-foundation 6.3).
    public static func folder(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Replaces `path` with `text` as a whole: written to a new file beside it (created exclusively,
    /// never through a link), then renamed into place, so that nobody reads half of it.
    public static func write(_ text: String, to path: String) throws {
        if isStandardStream(path) {
            // Appended: what Ringside itself wrote to the stream before stays.
            return try writeInPlace(text, to: path, open(path, O_WRONLY | O_APPEND | O_CLOEXEC))
        }
        if try isDeviceOrPipe(path) {
            // A FIFO nobody reads would block for ever: opened without waiting, it says so at once.
            let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd < 0, errno == ENXIO {
                throw Refused(description: "\(path) is a FIFO nobody reads; start its reader first")
            }
            // Back to blocking writes: a reader that is slow must get every byte.
            if fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
            return try writeInPlace(text, to: path, fd)
        }
        try refuseLink(path)
        // A folder (`--junit ./`) is not a file to replace: said so, not "Device or resource busy".
        var isFolder: ObjCBool = false
        if path.hasSuffix("/")
            || (FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue)
        {
            throw Refused(
                description:
                    "\(path) is a folder; give the file to write, e.g. \(path.hasSuffix("/") ? path : path + "/")report"
            )
        }
        var template = Array((folder(of: path) + "/.ringside-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Refused(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure = writeAll(Array(text.utf8), to: fd)
        // A file replaced keeps its mode (a report kept private stays so); a new one is 0644.
        var existing = stat()
        let mode = lstat(path, &existing) == 0 ? existing.st_mode & 0o777 : 0o644
        if failure == 0, fchmod(fd, mode) != 0 || fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw Refused(description: "cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// Writes `text` to `fd`, opened on `path` (a stream, a device, a pipe), and closes it.
    private static func writeInPlace(_ text: String, to path: String, _ fd: Int32) throws {
        guard fd >= 0 else { throw Refused(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        let failure = writeAll(Array(text.utf8), to: fd)
        close(fd)
        if failure != 0 { throw Refused(description: "cannot write \(path): \(String(cString: strerror(failure)))") }
    }

    /// Writes all of `bytes` to `fd` (a pipe or a full disk may take part of them at a time, a
    /// signal none): 0, or the `errno` that stopped it. The one write loop of the transcript, the
    /// request log and the files above.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errno : EIO
                }
            }
            return 0
        }
    }

    /// Opens `path` to write as events come (a transcript): created or emptied, never through a link.
    public static func openForStreaming(_ path: String) throws -> Int32 {
        let follow = try isDeviceOrPipe(path) ? 0 : O_NOFOLLOW
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | follow, 0o644)
        guard fd >= 0 else {
            if errno == ELOOP { try refuseLink(path) }
            throw Refused(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }
}
