// The focus guard of the background route: note the user's frontmost app before a background
// action; if the target app comes to the front (some apps activate themselves on a focus
// record or a click), give the front back to the noted app. Its answer is the result's
// `focusRestored`.
//
// The target may activate itself late: posted events wait in its queue, and it may act on the
// last of them after the helper has posted everything. So the guard does not look once, 50 ms
// after the events: from its creation until `settle` after the last event it listens for
// NSWorkspace.didActivateApplicationNotification and answers the target's activation at once,
// as trycua's cua-driver does (Focus/SystemFocusStealPreventer.swift: the same notification,
// an immediate re-activation, a bounded lifetime). A final look at the frontmost app covers an
// activation that came before the observer was in place.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import Foundation

final class FocusGuard: @unchecked Sendable {
    /// How long the guard keeps listening after the last event was posted.
    static let settle: TimeInterval = 0.3

    let target: pid_t
    /// The frontmost app when the guard was made, unless it was the target itself.
    private let previous: NSRunningApplication?
    private let lock = NSLock()
    private var restored = false
    private var observer: NSObjectProtocol?

    init(target: pid_t) {
        self.target = target
        let front = NSWorkspace.shared.frontmostApplication
        previous = front?.processIdentifier == target ? nil : front
        guard previous != nil else { return }
        // Delivered on the thread that posts it (the main thread), while this call's queue posts events.
        observer = NSWorkspace.shared.notificationCenter.addObserver(
            forName: NSWorkspace.didActivateApplicationNotification, object: nil, queue: nil
        ) { [weak self] note in
            guard let self = self,
                  let app = note.userInfo?[NSWorkspace.applicationUserInfoKey] as? NSRunningApplication,
                  app.processIdentifier == self.target else { return }
            self.giveBack()
        }
    }

    deinit {
        if let observer = observer { NSWorkspace.shared.notificationCenter.removeObserver(observer) }
    }

    /// After the last event: listens for `settle` more, then makes sure the noted app has the
    /// front. True when the target had taken the front and the noted app has it again.
    func restore() -> Bool {
        guard let previous = previous, !previous.isTerminated else { return false }
        Thread.sleep(forTimeInterval: FocusGuard.settle)
        if let observer = observer {
            NSWorkspace.shared.notificationCenter.removeObserver(observer)
            self.observer = nil
        }
        if NSWorkspace.shared.frontmostApplication?.processIdentifier == target { giveBack() }
        lock.lock()
        let gaveBack = restored
        lock.unlock()
        guard gaveBack else { return false }
        if FocusGuard.waitFrontmost(previous.processIdentifier, seconds: 0.3) { return true }
        // macOS 14's cooperative activation may ignore an accessory app's request; AX is not.
        let app = AXUIElementCreateApplication(previous.processIdentifier)
        _ = AXUIElementSetAttributeValue(app, "AXFrontmost" as CFString, kCFBooleanTrue)
        return FocusGuard.waitFrontmost(previous.processIdentifier, seconds: 0.5)
    }

    /// Asks the noted app to come back to the front.
    private func giveBack() {
        guard let previous = previous, !previous.isTerminated else { return }
        lock.lock()
        restored = true
        lock.unlock()
        if #available(macOS 14.0, *) {
            _ = previous.activate(options: [])
        } else {
            _ = previous.activate(options: [.activateIgnoringOtherApps])
        }
    }

    private static func waitFrontmost(_ pid: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if NSWorkspace.shared.frontmostApplication?.processIdentifier == pid { return true }
            usleep(50_000)
        }
        return NSWorkspace.shared.frontmostApplication?.processIdentifier == pid
    }
}
