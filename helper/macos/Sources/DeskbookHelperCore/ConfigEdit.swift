// Edits of config.json by the helper itself ("Always Allow"), as src/config/config-edit.ts does:
// every other key kept, the file written whole to a temporary file (0600) and renamed into
// place, so a crash never leaves half a config behind. Foundation's decoder does not keep key
// order, so the keys come back sorted; the values are unchanged.
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

public enum ConfigEdit {
    public struct EditError: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { return message }
    }

    /// One edit at a time: two answers at once must not each drop the other's entry.
    private static let lock = NSLock()

    /// Appends `entry` to config.json's `allow` list (unless it is there already).
    public static func addToAllow(home: String, entry: String) throws {
        try addToList(home: home, list: "allow", entry: entry)
    }

    /// Appends `entry` to the `allow` or `deny` list of config.json, once (case-insensitively).
    public static func addToList(home: String, list: String, entry: String) throws {
        lock.lock()
        defer { lock.unlock() }
        let path = (home as NSString).appendingPathComponent(DeskbookConfig.fileName)
        var config = try readObject(path)
        var entries = config[list]?.arrayValue ?? []
        let lower = entry.lowercased()
        if !entries.contains(where: { $0.stringValue?.lowercased() == lower }) {
            entries.append(.string(entry))
        }
        config[list] = .array(entries)
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temp = "\(path).\(ProcessInfo.processInfo.processIdentifier).tmp"
        try PrivateFile.write(Array((prettyText(.object(config)) + "\n").utf8), to: temp, .replace)
        guard rename(temp, path) == 0 else {
            let code = errno
            _ = unlink(temp)
            throw PrivateFile.error(code)
        }
    }

    /// The file's object; `{}` when there is no file. Anything else is refused, never replaced.
    static func readObject(_ path: String) throws -> [String: JSONValue] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(data))
        } catch {
            throw EditError(message: "\(path) is not valid JSON (\(JSONValue.describeParseError(error))); not changing it")
        }
        guard let object = value.objectValue else {
            throw EditError(message: "\(path) is not a JSON object; not changing it")
        }
        return object
    }

    /// JSON.stringify(value, null, 2): two-space indents, `"key": value`, empty containers inline.
    static func prettyText(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            let lines = items.map { inner + prettyText($0, indent: inner) }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let fields) where !fields.isEmpty:
            let lines = fields.keys.sorted().map { key in
                inner + JSONValue.stringText(key) + ": " + prettyText(fields[key] ?? .null, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return value.jsonText
        }
    }
}
