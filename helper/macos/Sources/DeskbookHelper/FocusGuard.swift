// The focus guard of the background route: note the user's frontmost app before a background
// action; if the target app came to the front anyway (some apps activate themselves on a
// focus record or a click), give the front back to the noted app. Its answer is the result's
// `focusRestored`.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import Foundation

struct FocusGuard {
    let target: pid_t
    /// The frontmost app when the guard was made, unless it was the target itself.
    private let previous: NSRunningApplication?

    init(target: pid_t) {
        self.target = target
        let front = NSWorkspace.shared.frontmostApplication
        previous = front?.processIdentifier == target ? nil : front
    }

    /// True when the target had taken the front and the noted app has it again.
    func restore() -> Bool {
        guard let previous = previous, !previous.isTerminated else { return false }
        usleep(50_000) // an app that activates itself does so a moment after the event
        guard NSWorkspace.shared.frontmostApplication?.processIdentifier == target else { return false }
        if #available(macOS 14.0, *) {
            _ = previous.activate(options: [])
        } else {
            _ = previous.activate(options: [.activateIgnoringOtherApps])
        }
        if FocusGuard.waitFrontmost(previous.processIdentifier, seconds: 0.3) { return true }
        // macOS 14's cooperative activation may ignore an accessory app's request; AX is not.
        let app = AXUIElementCreateApplication(previous.processIdentifier)
        _ = AXUIElementSetAttributeValue(app, "AXFrontmost" as CFString, kCFBooleanTrue)
        return FocusGuard.waitFrontmost(previous.processIdentifier, seconds: 0.5)
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
