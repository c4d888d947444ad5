// actions.log, as helper/linux/action-log.ts writes it: one JSON line per gated call that acts
// (or that the gate refused), so a user can see afterwards what was done to which app, by
// which client and notebook step. Typed text (and a script's source) is logged as its length unless config.json says
// `log.text: true`. The file is 0600, and tightened to it if it was looser.
//
// Field order: ts, client, step, app, pid, action, the params, route, refused, as on Linux.
// One difference: the params come in sorted order, not as sent, because Foundation's JSON
// decoding does not keep an object's key order.
import Foundation

public enum ActionLog {
    public static let fileName = "actions.log"

    // loggedMethods, the methods that change something (reads are not logged), is generated
    // from helper/linux/action-log.ts into ProtocolTables.swift.

    public struct Record: Equatable {
        public var client: String
        public var step: String?
        public var app: String
        public var pid: Int?
        /// The method name.
        public var action: String
        /// The request's params as sent.
        public var params: [String: JSONValue]
        /// For input methods, the route taken.
        public var route: String?
        /// The gate's code when it refused the call.
        public var refused: String?

        public init(client: String, step: String? = nil, app: String, pid: Int? = nil, action: String,
                    params: [String: JSONValue], route: String? = nil, refused: String? = nil) {
            self.client = client
            self.step = step
            self.app = app
            self.pid = pid
            self.action = action
            self.params = params
            self.route = route
            self.refused = refused
        }
    }

    /// The line as written, without its newline.
    public static func line(_ record: Record, log: DeskbookConfig.Log, now: Date = Date()) -> String {
        var fields: [(String, JSONValue)] = [("ts", .string(timestamp(now))), ("client", .string(record.client))]
        if let step = record.step { fields.append(("step", .string(step))) }
        fields.append(("app", .string(record.app)))
        if let pid = record.pid { fields.append(("pid", .number(Double(pid)))) }
        fields.append(("action", .string(record.action)))
        for (key, value) in loggedParams(record.params, withText: log.text) {
            set(&fields, key, value)
        }
        if let route = record.route { set(&fields, "route", .string(route)) }
        if let refused = record.refused { set(&fields, "refused", .string(refused)) }
        return JSONValue.objectText(fields)
    }

    /// Appends the record to `home`/actions.log (0600) unless logging is off.
    public static func append(home: String, log: DeskbookConfig.Log, record: Record, now: Date = Date()) throws {
        guard log.enabled else { return }
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = (home as NSString).appendingPathComponent(fileName)
        let bytes = Array((line(record, log: log, now: now) + "\n").utf8)
        lock.lock()
        defer { lock.unlock() }
        try PrivateFile.write(bytes, to: path, .append)
    }

    /// One writer at a time, so lines from concurrent calls never interleave.
    private static let lock = NSLock()

    /// The params as logged: pid left out (it has its own field), performAction's `action` as
    /// `axAction` (so it does not overwrite the method), text as its length unless asked.
    static func loggedParams(_ params: [String: JSONValue], withText: Bool) -> [(String, JSONValue)] {
        var rest: [(String, JSONValue)] = []
        for key in params.keys.sorted() where key != "pid" && key != "action" {
            if let value = params[key] { rest.append((key, value)) }
        }
        if let action = params["action"] { set(&rest, "axAction", action) }
        if !withText {
            // A script's source is text like any other: it may hold what it types into an app.
            for key in ["text", "value", "source"] {
                guard let index = rest.firstIndex(where: { $0.0 == key }),
                      case .string(let text) = rest[index].1 else { continue }
                rest.remove(at: index)
                // JavaScript's length: UTF-16 code units.
                set(&rest, "length", .number(Double(text.utf16.count)))
            }
        }
        return rest
    }

    /// Sets a field as a JavaScript object assignment does: in place if present, else at the end.
    static func set(_ fields: inout [(String, JSONValue)], _ key: String, _ value: JSONValue) {
        if let index = fields.firstIndex(where: { $0.0 == key }) {
            fields[index] = (key, value)
        } else {
            fields.append((key, value))
        }
    }

    /// ISO 8601 in UTC with milliseconds, as Date.prototype.toISOString: 2025-01-05T10:20:30.123Z.
    /// Milliseconds are truncated, as JavaScript's whole-millisecond time is; the formatter gets
    /// whole seconds only, so whether it rounds or truncates fractions never shows.
    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = millis / 1000
        var fraction = millis % 1000
        if fraction < 0 { seconds -= 1; fraction += 1000 } // before 1970: floor, not toward zero
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        let whole = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        let digits = String(fraction)
        let base = whole.hasSuffix("Z") ? String(whole.dropLast()) : whole
        return base + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
