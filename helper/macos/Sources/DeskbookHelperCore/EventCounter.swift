// Counts accessibility events per app and lets a call wait for the next, for waitChange, as
// helper/linux/event-counter.ts does: a waiter passes the count it last saw (`after`) so an
// event between two calls is never lost (the call then returns at once). Calls run on the
// dispatcher's background queue, so waiting blocks that thread on a condition, never the main one.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public final class EventCounter {
    private let condition = NSCondition()
    private var counts: [Int32: Int] = [:]

    public init() {}

    /// An event of `pid` came (called from the main run loop's observer callback).
    public func bump(_ pid: Int32) {
        condition.lock()
        counts[pid, default: 0] += 1
        condition.broadcast()
        condition.unlock()
    }

    /// The app's observer went away: its count starts again, which a waiter sees as a change.
    public func drop(_ pid: Int32) {
        condition.lock()
        counts[pid] = nil
        condition.broadcast()
        condition.unlock()
    }

    public func seq(_ pid: Int32) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return counts[pid] ?? 0
    }

    /// Returns once the count differs from `after` (default: the count now), or after `timeout` seconds.
    public func wait(_ pid: Int32, after: Int?, timeout: Double) -> (seq: Int, changed: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let baseline = after ?? (counts[pid] ?? 0)
        let deadline = Date().addingTimeInterval(max(0, timeout))
        while (counts[pid] ?? 0) == baseline && Date() < deadline {
            _ = condition.wait(until: deadline)
        }
        let seq = counts[pid] ?? 0
        return (seq, seq != baseline)
    }
}
