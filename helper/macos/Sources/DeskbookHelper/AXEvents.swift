// waitChange on macOS: one AXObserver per app, made on the first waitChange for it, watching
// the notifications that mean its tree or windows changed, registered on the application
// element (which covers its descendants). The observer's run loop source goes on the main run
// loop (NSApplication runs it); the callback only counts (EventCounter, the core's). An app
// that refuses every notification is not watched, and the client polls instead.
//
// NEVER COMPILED OR RUN (see README.md).
import ApplicationServices
import DeskbookHelperCore
import Foundation

final class AXEvents {
    static let notifications = [
        "AXCreated", "AXUIElementDestroyed", "AXValueChanged", "AXTitleChanged", "AXFocusedUIElementChanged",
        "AXFocusedWindowChanged", "AXWindowCreated", "AXWindowMiniaturized", "AXWindowDeminiaturized",
        "AXSelectedChildrenChanged", "AXSelectedTextChanged", "AXLayoutChanged", "AXMenuOpened", "AXMenuClosed",
        "AXRowCountChanged",
    ]

    let counter = EventCounter()
    private let lock = NSLock()
    /// nil: tried, and the app gives no notifications.
    private var observers: [pid_t: AXObserver?] = [:]

    /// The protocol's waitChange, on the call queue: blocks up to `timeoutMs`.
    func waitChange(pid: pid_t, after: Int?, timeoutMs: Int) throws -> JSONValue {
        try Accessibility.requireTrust()
        guard watch(pid) else {
            return .object(["seq": .number(0), "changed": .bool(false), "watching": .bool(false)])
        }
        let (seq, changed) = counter.wait(pid, after: after, timeout: Double(timeoutMs) / 1000)
        return .object(["seq": .number(Double(seq)), "changed": .bool(changed), "watching": .bool(true)])
    }

    /// Drops the app's observer (`forget`, or the app quit).
    func stop(pid: pid_t) {
        lock.lock()
        let known = observers.removeValue(forKey: pid)
        lock.unlock()
        if let observer = known ?? nil {
            CFRunLoopRemoveSource(CFRunLoopGetMain(), AXObserverGetRunLoopSource(observer), .defaultMode)
        }
        counter.drop(pid)
    }

    /// True once the app has an observer with at least one notification.
    private func watch(_ pid: pid_t) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let known = observers[pid] { return known != nil }
        var created: AXObserver?
        let callback: AXObserverCallback = { _, element, _, refcon in
            guard let refcon = refcon else { return }
            var owner: pid_t = 0
            guard AXUIElementGetPid(element, &owner) == .success else { return }
            Unmanaged<AXEvents>.fromOpaque(refcon).takeUnretainedValue().counter.bump(owner)
        }
        guard AXObserverCreate(pid, callback, &created) == .success, let observer = created else {
            observers[pid] = .some(nil)
            return false
        }
        let app = AXUIElementCreateApplication(pid)
        // The helper lives as long as its observers, so an unretained self is safe here.
        let refcon = Unmanaged.passUnretained(self).toOpaque()
        let added = AXEvents.notifications.filter {
            AXObserverAddNotification(observer, app, $0 as CFString, refcon) == .success
        }
        guard !added.isEmpty else {
            observers[pid] = .some(nil)
            return false
        }
        CFRunLoopAddSource(CFRunLoopGetMain(), AXObserverGetRunLoopSource(observer), .defaultMode)
        observers[pid] = observer
        return true
    }
}
