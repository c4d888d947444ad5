// The connections that have said hello, for the menu bar (who is connected, which apps each may
// drive, "Revoke Session Approvals") and for quitting when idle. RequestHandler adds a session
// when its hello succeeds and removes it when the connection closes.
import Foundation

public final class SessionRegistry: @unchecked Sendable {
    /// One connected client as the menu shows it.
    public struct Entry: Equatable {
        public let client: String
        /// The apps allowed for this session, by name.
        public let approvedApps: [String]

        public init(client: String, approvedApps: [String]) {
            self.client = client
            self.approvedApps = approvedApps
        }
    }

    private let lock = NSLock()
    /// In the order the clients said hello.
    private var sessions: [Session] = []
    private var changeHandler: (() -> Void)?

    public init() {}

    /// Called after every change, on whichever thread made it (a connection's queue): hop to
    /// the main thread before touching AppKit.
    public var onChange: (() -> Void)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return changeHandler
        }
        set {
            lock.lock()
            changeHandler = newValue
            lock.unlock()
        }
    }

    /// How many connections have said hello and are still open.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return sessions.count
    }

    public var entries: [Entry] {
        return snapshot().map { Entry(client: $0.client ?? "a client", approvedApps: $0.approvedApps) }
    }

    /// A connection said hello (again: its client name may have changed).
    public func add(_ session: Session) {
        lock.lock()
        if !sessions.contains(where: { $0 === session }) { sessions.append(session) }
        lock.unlock()
        changed()
    }

    /// A connection closed; a session that never said hello is not here, and nothing changes.
    public func remove(_ session: Session) {
        lock.lock()
        let before = sessions.count
        sessions.removeAll { $0 === session }
        let removed = sessions.count != before
        lock.unlock()
        if removed { changed() }
    }

    /// "Revoke Session Approvals": every connection's Allow answers are forgotten.
    public func revokeSessionApprovals() {
        for session in snapshot() {
            session.revokeApprovals()
        }
        changed()
    }

    private func snapshot() -> [Session] {
        lock.lock()
        defer { lock.unlock() }
        return sessions
    }

    /// Outside the lock, so the handler may read the registry.
    private func changed() {
        onChange?()
    }
}
