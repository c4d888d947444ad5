// The socket's place on disk, as helper/linux/socket-setup.ts: a directory only the user can
// enter (0700, owned by them), no second helper on the same socket, and a stale socket file
// removed only when nothing answers on it. Darwin only: on other systems this file is empty.
#if canImport(Darwin)
import Darwin
import Foundation

public enum SocketFiles {
    /// Why the helper cannot listen where it was asked to.
    public struct SetupError: Error, CustomStringConvertible {
        public let message: String
        public init(_ message: String) { self.message = message }
        public var description: String { return message }
    }

    public enum Preparation: Equatable {
        /// Nothing listens at the path: bind there.
        case ready
        /// Another helper answers there: one helper per socket, so this one should exit 0.
        case taken
    }

    /// Makes the directory safe and clears a stale socket. Call under umask 077.
    public static func prepare(path: String) throws -> Preparation {
        let length = path.utf8.count
        if length > HelperPaths.maxSocketPathBytes {
            throw SetupError("the socket path is \(length) bytes, over the \(HelperPaths.maxSocketPathBytes)-byte limit of a Unix socket; set DESKBOOK_SOCKET to a shorter path")
        }
        try secureDirectory((path as NSString).deletingLastPathComponent)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return .ready }
            throw SetupError("cannot look at \(path): \(reason(errno))")
        }
        if fileType(info) != 0o140000 {
            throw SetupError("\(path) exists and is not a socket; move it away")
        }
        if try answers(path) { return .taken }
        // Stale: its helper died without cleaning up.
        guard unlink(path) == 0 || errno == ENOENT else {
            throw SetupError("cannot remove the stale socket \(path): \(reason(errno))")
        }
        return .ready
    }

    /// mkdir -p with 0700, owned by this user, not a symlink; a looser mode is tightened.
    static func secureDirectory(_ dir: String) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SetupError("cannot create \(dir): \(error.localizedDescription)")
        }
        var info = stat()
        guard lstat(dir, &info) == 0 else { throw SetupError("cannot look at \(dir): \(reason(errno))") }
        if fileType(info) != 0o040000 {
            throw SetupError("\(dir) is not a directory (a symlink?); the socket needs a private directory")
        }
        let uid = getuid()
        if info.st_uid != uid {
            throw SetupError("\(dir) belongs to uid \(info.st_uid), not to you (uid \(uid)); refusing to put the helper socket there")
        }
        let mode = UInt32(info.st_mode) & 0o777
        if mode & 0o077 != 0 {
            guard chmod(dir, 0o700) == 0 else { throw SetupError("cannot tighten \(dir) to 700: \(reason(errno))") }
            FileHandle.standardError.write(Data("tightened \(dir) from \(String(mode, radix: 8)) to 700\n".utf8))
        }
    }

    /// True when something accepts a connection at `path`; false when nothing listens there.
    /// A refusal is asked again twice, 100 ms apart: macOS also refuses when a live listener's
    /// backlog is momentarily full.
    static func answers(_ path: String) throws -> Bool {
        for attempt in 1...3 {
            let fd = socket(AF_UNIX, SOCK_STREAM, 0)
            guard fd >= 0 else { throw SetupError("cannot create a socket: \(reason(errno))") }
            defer { _ = close(fd) }
            noSigpipe(fd)
            // Non-blocking, so a listener that never accepts cannot hold the start up.
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
            let result = try withAddress(path) { address, size in connect(fd, address, size) }
            if result == 0 { return true }
            let code = errno
            switch code {
            case EINPROGRESS, EALREADY, EAGAIN:
                return true // a listener, busy: still a listener
            case ECONNREFUSED, ENOENT:
                if attempt < 3 { usleep(100_000) }
            default:
                throw SetupError("cannot tell whether a helper listens on \(path): \(reason(code))")
            }
        }
        return false
    }

    /// Calls `body` with a sockaddr_un for `path` and its size.
    static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) throws -> Int32 {
        var address = sockaddr_un()
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw SetupError("the socket path \(path) is too long for a Unix socket (\(bytes.count) bytes)")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
        // sockaddr_un() is all zeros, so the path stays NUL-terminated.
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, size) }
        }
    }

    /// A write to a peer that has gone answers EPIPE instead of killing the process.
    static func noSigpipe(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Not inherited by processes the helper starts.
    static func closeOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// The S_IFMT bits of a stat's mode: 0o040000 directory, 0o140000 socket, 0o120000 symlink.
    static func fileType(_ info: stat) -> UInt32 {
        return UInt32(info.st_mode) & 0o170000
    }

    static func reason(_ code: Int32) -> String {
        return String(cString: strerror(code))
    }
}
#endif
