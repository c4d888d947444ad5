// When the helper may quit: after `limit` (30 minutes) with no client connected. The executable
// asks once a minute; the next client launches the helper again. The clock is injected so the
// rule can be tested without waiting.
import Foundation

public final class IdleWatch: @unchecked Sendable {
    public static let defaultLimit: TimeInterval = 30 * 60
    /// How often the executable asks `shouldQuit`.
    public static let checkInterval: TimeInterval = 60

    private let limit: TimeInterval
    private let now: () -> Date
    private let lock = NSLock()
    /// When the last client went away (or the helper started); nil while one is connected.
    private var idleSince: Date?

    public init(limit: TimeInterval = IdleWatch.defaultLimit, now: @escaping () -> Date = { Date() }) {
        self.limit = limit
        self.now = now
        self.idleSince = now()
    }

    /// The number of connected clients changed.
    public func connectionsChanged(count: Int) {
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        if count > 0 {
            idleSince = nil
        } else if idleSince == nil {
            idleSince = time
        }
    }

    /// True when no client has been connected for `limit`. `connected` is the count right now,
    /// so a change the watch was not told about still counts.
    public func shouldQuit(connected: Int) -> Bool {
        connectionsChanged(count: connected)
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        guard let since = idleSince else { return false }
        return time.timeIntervalSince(since) >= limit
    }
}
