import Foundation

/// Files Ringside writes (reports, transcripts, the starter folder), only where it is asked
/// (issue 27): never through a symbolic link a pull request could plant, never half-written.
public enum OutputFiles {
    /// Why a file was not written, in words, naming the file.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Refuses a path through a symbolic link a checkout could hold: its last component, and each
    /// folder of it that is a link living in the current folder's tree (`--junit reports/j.xml`
    /// with `reports` a planted link to `/etc`, the adversary's, session 16), however the path
    /// reaches it — relative, through `$PWD` entered by a link, through `..`. Links elsewhere are
    /// the machine's (`/tmp` is one on macOS) and followed. A trailing `/` is read without it:
    /// `lstat("link/")` follows the link.
    public static func refuseLink(_ path: String) throws {
        var bare = Substring(path)
        while bare.count > 1, bare.hasSuffix("/") { bare = bare.dropLast() }
        if isLink(String(bare)) {
            throw Refused(
                description: "\(path) is a symbolic link; Ringside writes only where it is asked, never through a link")
        }
        guard let current = realPath(".") else { return }
        let folders = bare.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        var prefix = bare.hasPrefix("/") ? "" : "."
        for folder in folders {
            prefix += "/" + folder
            guard folder != ".", folder != "..", isLink(prefix),
                let home = realPath(OutputFiles.folder(of: prefix)),
                home == current || home.hasPrefix(current == "/" ? "/" : current + "/")
            else { continue }
            throw Refused(
                description:
                    "\(path) goes through \(prefix), a symbolic link; Ringside writes only where it is asked, never through a link (give the folder it points to)"
            )
        }
    }

    /// The path with every link and `..` resolved, as the system reads it; nil when it is not there.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// Links a user may name to write to the standard streams; a link anywhere else is refused.
    static let standardStreams: Set<String> = ["/dev/stdout", "/dev/stderr", "/dev/tty"]

    /// Whether `path` names a standard stream, whatever it is redirected to (`> out.txt` makes
    /// /dev/stdout a link to a regular file, which is written through as asked, at its end).
    static func isStandardStream(_ path: String) -> Bool {
        // `/dev/fd/` then digits only: `/dev/fd/../../tmp/x` is a path like any other (the adversary's).
        standardStreams.contains(path)
            || (path.hasPrefix("/dev/fd/") && path.count > 8
                && path.dropFirst(8).allSatisfy { $0.isASCII && $0.isNumber })
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
            // A link to a pipe as much as to a device: a checkout could plant one to /run/initctl.
            if isLink, !standardStreams.contains(path) {
                throw Refused(
                    description:
                        "\(path) is a symbolic link to a device or a pipe; Ringside writes only where it is asked, never through a link"
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
        if let fd = try openInPlace(path) { return try writeInPlace(text, to: path, fd) }
        let (fd, temporary) = try createBeside(path)
        var failure = writeAll(Array(text.utf8), to: fd)
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw Refused(description: "cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// A standard stream, a device or a pipe at `path`, opened to be written in place; nil for a
    /// file, which is replaced instead. A FIFO nobody reads would block for ever, deaf to SIGTERM
    /// (the adversary's `serve --transcript fifo`, session 16): opened without waiting, it says so.
    /// With `streaming`, a pipe stays non-blocking: a transcript's reader that stops reading
    /// must not stop the server (`writeAll(_:to:waitingAtMost:)`).
    private static func openInPlace(_ path: String, streaming: Bool = false) throws -> Int32? {
        // Appended: what Ringside itself wrote to the stream before stays.
        if isStandardStream(path) { return open(path, O_WRONLY | O_APPEND | O_CLOEXEC) }
        guard try isDeviceOrPipe(path) else { return nil }
        try refuseLink(path)
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0, errno == ENXIO {
            throw Refused(description: "\(path) is a FIFO nobody reads; start its reader first")
        }
        // Back to blocking writes for a report: a reader that is slow must get every byte.
        if fd >= 0, !streaming { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        return fd
    }

    /// A new file beside `path` (created exclusively, so never through a link), with the mode of
    /// the file it will replace (a report kept private stays so) or 0644, and its name. Renamed
    /// over `path`, it replaces the name only: a hard link to the old file is left as it was (the
    /// adversary's linked transcript, session 16, was emptied through it).
    private static func createBeside(_ path: String) throws -> (fd: Int32, temporary: String) {
        try refuseLink(path)
        func isFolder(_ path: String) -> Bool {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        }
        // A folder (`--junit ./`) is not a file to replace: said so, not "Device or resource busy".
        if isFolder(path) {
            let slashed = path.hasSuffix("/") ? path : path + "/"
            throw Refused(description: "\(path) is a folder; give the file to write, e.g. \(slashed)report")
        }
        if path.hasSuffix("/") {
            throw Refused(description: "\(path) names a folder, and there is none; give the file to write")
        }
        let folder = folder(of: path)
        guard isFolder(folder) else {
            throw Refused(description: "cannot write \(path): the folder \(folder) does not exist")
        }
        var template = Array((folder + "/.ringside-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Refused(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var existing = stat()
        let mode = lstat(path, &existing) == 0 ? existing.st_mode & 0o777 : 0o644
        if fchmod(fd, mode) != 0 {
            let failure = errno
            close(fd)
            unlink(temporary)
            throw Refused(description: "cannot write \(path): \(String(cString: strerror(failure)))")
        }
        return (fd, temporary)
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
    static func writeAll(_ bytes: [UInt8], to fd: Int32, waitingAtMost seconds: Double = 5) -> Int32 {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else if written < 0, errno == EAGAIN {
                    // A non-blocking pipe whose reader is behind: wait for room, not for ever.
                    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    if poll(&ready, 1, Int32(seconds * 1000)) <= 0 { return ETIMEDOUT }
                } else {
                    return written < 0 ? errno : EIO
                }
            }
            return 0
        }
    }

    /// Opens `path` to write as events come (a transcript): a stream, device or pipe in place, a
    /// file as a new one put in its place at once (so a reader sees it grow, and a hard link or a
    /// link planted there is left alone).
    public static func openForStreaming(_ path: String) throws -> Int32 {
        if let fd = try openInPlace(path, streaming: true) {
            guard fd >= 0 else {
                throw Refused(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return fd
        }
        let (fd, temporary) = try createBeside(path)
        if rename(temporary, path) != 0 {
            let failure = errno
            close(fd)
            unlink(temporary)
            throw Refused(description: "cannot write \(path): \(String(cString: strerror(failure)))")
        }
        return fd
    }
}
