// One client connection's state, as helper/linux/session.ts: who it is (from hello) and what
// its user answered in approval dialogs. "Allow for this session" lasts as long as the
// connection. Calls on one connection run concurrently, so every field is behind a lock.
import Foundation

public final class Session: @unchecked Sendable {
    private let lock = NSLock()
    private var clientName: String?
    private var choices: [String: Policy.SessionChoice] = [:]
    /// appKey → the app's name as people know it, for the menu bar's list.
    private var names: [String: String] = [:]
    private var closed = false
    private var notifier: ((Event) -> Void)?

    public init() {}

    /// Where events for this connection only go (approval progress); the connection sets it.
    func setNotifier(_ send: @escaping (Event) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        notifier = send
    }

    /// Sends `event` to this connection alone; nothing when no connection listens.
    public func notify(_ event: Event) {
        lock.lock()
        let send = notifier
        lock.unlock()
        send?(event)
    }

    /// The `client` from hello; nil until hello succeeded, and nothing else is served before.
    public var client: String? {
        lock.lock()
        defer { lock.unlock() }
        return clientName
    }

    func setClient(_ name: String) {
        lock.lock()
        defer { lock.unlock() }
        clientName = name
    }

    /// appKey → the user's answer on this connection, as Policy.decide takes them.
    public var approvals: [String: Policy.SessionChoice] {
        lock.lock()
        defer { lock.unlock() }
        return choices
    }

    public func record(_ choice: Policy.SessionChoice, forKey key: String, name: String? = nil) {
        lock.lock()
        defer { lock.unlock() }
        choices[key] = choice
        if let name = name { names[key] = name }
    }

    /// The apps allowed on this connection, by name (the key when no name was recorded), sorted.
    public var approvedApps: [String] {
        lock.lock()
        defer { lock.unlock() }
        let allowed = choices.filter { $0.value == .allow }.map { names[$0.key] ?? $0.key }
        return allowed.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending }
    }

    /// Forgets every "Allow for This Session" answer: the next call for those apps asks again.
    /// Deny answers stay, so revoking never lets anything through.
    public func revokeApprovals() {
        lock.lock()
        defer { lock.unlock() }
        choices = choices.filter { $0.value != .allow }
    }

    /// True once the connection has gone: nobody is left to wait for a dialog's answer.
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    func markClosed() {
        lock.lock()
        defer { lock.unlock() }
        closed = true
    }
}
