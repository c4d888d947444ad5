// Writing a file only its owner may read (mode 0600), the way actions.log and config.json are
// written: the mode is set when the file is created, so it is never readable by others even
// for a moment, and an older, looser file is tightened.
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

public enum PrivateFile {
    public enum Mode {
        /// Add to the end (actions.log).
        case append
        /// Replace the contents (a temporary file about to be renamed into place).
        case replace
    }

    /// Writes all of `bytes` to `path` with mode 0600.
    public static func write(_ bytes: [UInt8], to path: String, _ mode: Mode) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mode == .append ? O_APPEND : O_TRUNC)
        let fd = open(path, flags, 0o600)
        guard fd >= 0 else { throw error(errno) }
        defer { _ = close(fd) }
        // O_CREAT's mode applies to a new file only.
        _ = fchmod(fd, 0o600)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return systemWrite(fd, base + offset, raw.count - offset)
            }
            if count > 0 {
                offset += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                throw error(errno)
            }
        }
    }

    /// write(2), named apart from `PrivateFile.write`, which would shadow it here.
    private static func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.write(fd, buffer, count)
        #else
        return Glibc.write(fd, buffer, count)
        #endif
    }

    /// A POSIX error code as a Swift error.
    public static func error(_ code: Int32) -> Error {
        return POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
