// Where Deskbook keeps its files and where the helper listens, computed as src/config/home.ts
// and src/helper/socket-path.ts do: DESKBOOK_HOME (default ~/.deskbook) and DESKBOOK_SOCKET
// (default $DESKBOOK_HOME/helper.sock), a leading ~ expanded, a relative path made absolute.
import Foundation

public enum HelperPaths {
    /// sockaddr_un allows 104 bytes on macOS, counting the NUL.
    public static let maxSocketPathBytes = 103

    /// The directory holding config.json and actions.log. Always absolute.
    public static func home(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let userHome = nonEmpty(environment["HOME"]) ?? NSHomeDirectory()
        let configured = (environment["DESKBOOK_HOME"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if configured.isEmpty { return join(userHome, ".deskbook") }
        if configured == "~" { return userHome }
        if configured.hasPrefix("~/") { return join(userHome, String(configured.dropFirst(2))) }
        return absolute(configured)
    }

    /// The helper's socket: DESKBOOK_SOCKET, else `home`/helper.sock.
    public static func socket(environment: [String: String] = ProcessInfo.processInfo.environment, home: String? = nil) -> String {
        let base = home ?? self.home(environment: environment)
        let configured = (environment["DESKBOOK_SOCKET"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if configured.isEmpty { return join(base, "helper.sock") }
        if configured.hasPrefix("~/") {
            let userHome = nonEmpty(environment["HOME"]) ?? NSHomeDirectory()
            return join(userHome, String(configured.dropFirst(2)))
        }
        return absolute(configured)
    }

    /// `path` as is when absolute, else resolved against the working directory.
    public static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        return join(FileManager.default.currentDirectoryPath, path)
    }

    static func join(_ base: String, _ tail: String) -> String {
        return normalize(base + "/" + tail)
    }

    /// "." and empty components dropped, ".." applied, no trailing slash (as path.resolve gives).
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value = value, !value.isEmpty else { return nil }
        return value
    }
}
