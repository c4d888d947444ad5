// `confirm: "ask"`, as helper/linux/confirmation.ts and src/config/confirmations.ts do it: a
// press on an element whose label looks destructive (Grant.destructiveWord) is refused with
// confirmation_required and a one-time token, written as $DESKBOOK_HOME/confirmations/TOKEN.json
// (0600, directory 0700). `deskbook confirm TOKEN`, run by the person in their own terminal,
// sets its `approved`; the same press (same pid, same element or menu item, same label) then
// goes through once. The approval is used up only when the press is sent (Approval.sent): a
// call that fails before keeps it. Only tokens this helper issued count.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

public final class Confirmations {
    public static let directory = "confirmations"
    /// How long a token waits for the person, and then for the call to be repeated.
    public static let ttlSeconds: Double = 600
    /// Letters and digits that cannot be misread for one another, as in confirmations.ts.
    static let alphabet = Array("ABCDEFGHJKMNPQRSTWXYZ23456789")

    public struct Press {
        public var app: String
        public var pid: Int?
        public var method: String
        /// Names the pressed thing within the app ("element 7", "menu File > Delete").
        public var key: String
        public var label: String
        public var word: String
        public init(app: String, pid: Int?, method: String, key: String, label: String, word: String) {
            self.app = app
            self.pid = pid
            self.method = method
            self.key = key
            self.label = label
            self.word = word
        }
    }

    /// An approved press on its way: `sent` uses the approval up, `notSent` keeps it for the next try.
    public struct Approval {
        public let sent: () -> Void
        public let notSent: () -> Void
        public static let none = Approval(sent: {}, notSent: {})
    }

    private struct Issued {
        let token: String
        let expiresAt: Double
    }

    private let lock = NSLock()
    private var issued: [String: Issued] = [:]
    private let now: () -> Double

    public init(now: @escaping () -> Double = { Date().timeIntervalSince1970 }) {
        self.now = now
    }

    /// The approval of a press the person approved; throws confirmation_required otherwise.
    public func check(_ press: Press, home: String) throws -> Approval {
        lock.lock()
        defer { lock.unlock() }
        dropExpired(home: home)
        // The label is part of the key: an approval of "Send" is not one of the element relabelled "Delete all".
        let key = "\(press.pid.map { String($0) } ?? "")\n\(press.key)\n\(press.label)"
        if let known = issued[key], let pending = Confirmations.read(home: home, token: known.token) {
            if pending["approved"]?.boolValue == true {
                // Taken out while the press runs, so a second call at the same time is asked afresh.
                issued[key] = nil
                return Approval(
                    sent: { Confirmations.remove(home: home, token: known.token) },
                    notSent: { [self] in
                        lock.lock()
                        defer { lock.unlock() }
                        // A token issued meanwhile for the same press gives way to the approved one.
                        if let newer = issued[key] { Confirmations.remove(home: home, token: newer.token) }
                        issued[key] = known
                    })
            }
            // Asked again before the person answered: the same token, so their approval still counts.
            throw Confirmations.refusal(press, token: known.token)
        }
        let token = Confirmations.newToken()
        let expiresAt = now() + Confirmations.ttlSeconds
        var fields: [(String, JSONValue)] = [("token", .string(token)), ("app", .string(press.app))]
        if let pid = press.pid { fields.append(("pid", .number(Double(pid)))) }
        fields += [
            ("method", .string(press.method)), ("label", .string(press.label)), ("word", .string(press.word)),
            // Epoch milliseconds, as JavaScript's Date.now().
            ("expiresAt", .number((expiresAt * 1000).rounded(.down))), ("approved", .bool(false)),
        ]
        try Confirmations.write(home: home, token: token, text: JSONValue.objectText(fields))
        issued[key] = Issued(token: token, expiresAt: expiresAt)
        throw Confirmations.refusal(press, token: token)
    }

    private func dropExpired(home: String) {
        let current = now()
        for (key, known) in issued where known.expiresAt <= current {
            issued[key] = nil
            Confirmations.remove(home: home, token: known.token)
        }
    }

    static func refusal(_ press: Press, token: String) -> HelperError {
        let minutes = Int(ttlSeconds / 60)
        return HelperError(.confirmationRequired,
            "pressing \(JSONValue.stringText(press.label)) in \(press.app) needs the person's confirmation (\"\(press.word)\" looks destructive and confirm is \"ask\" in config.json). "
            + "The person approves it in their own terminal: deskbook confirm \(token); a cell or agent cannot. "
            + "Once approved, the same call run again within \(minutes) minutes presses it once")
    }

    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let half = { String((0..<4).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }) }
        return half() + "-" + half()
    }

    static func path(home: String, token: String) -> String {
        return ((home as NSString).appendingPathComponent(directory) as NSString).appendingPathComponent("\(token).json")
    }

    static func write(home: String, token: String, text: String) throws {
        let dir = (home as NSString).appendingPathComponent(directory)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = chmod(dir, 0o700)
        let file = path(home: home, token: token)
        let temp = "\(file).\(ProcessInfo.processInfo.processIdentifier).tmp"
        try PrivateFile.write(Array((text + "\n").utf8), to: temp, .replace)
        guard rename(temp, file) == 0 else {
            let code = errno
            _ = unlink(temp)
            throw PrivateFile.error(code)
        }
    }

    static func read(home: String, token: String) -> [String: JSONValue]? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path(home: home, token: token))),
              let object = (try? JSONValue.parse(data))?.objectValue,
              object["token"]?.stringValue == token else { return nil }
        return object
    }

    static func remove(home: String, token: String) {
        _ = unlink(path(home: home, token: token))
    }
}
