// The approval dialog for `approval: "ask"`: an NSAlert naming the client (from hello) and the
// app (name, bundle id, pid), with "Allow for This Session", "Always Allow" and "Deny". The gate
// (ApprovalGate, in the core) calls `ask` on a background queue, holding the InputFloor (no
// synthetic input meanwhile); the alert runs on the main thread and that queue waits for the
// answer. At the request's deadline (60 s after the call asked, however long this alert waited
// behind another), or once the connection closes, a timer in the modal run loop mode aborts it.
//
// Keys: Escape chooses Deny. Return chooses nothing: NSAlert gives its first button Return,
// and that is taken away so that a script's typed Return can never approve anything.
//
// One alert at a time (a lock): a second runModal would nest inside the first, whose timer
// would then abort the wrong one.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import CoreFoundation
import DeskbookHelperCore
import Foundation

final class ApprovalDialog: Approver {
    static let allowSession = "Allow for This Session"
    static let alwaysAllow = "Always Allow"
    static let deny = "Deny"
    /// How often the open alert checks the clock and the connection.
    private static let tick: TimeInterval = 1

    private let oneAtATime = NSLock()

    /// What the dialog says about an app: bundle id, location, process.
    static func detail(for target: AppRecord) -> String {
        var lines: [String] = []
        if let bundleId = target.bundleId { lines.append("Bundle id: \(bundleId)") }
        if let path = target.path { lines.append("Location: \(path)") }
        lines.append(target.pid.map { "Process id: \($0)" } ?? "Not running yet: the client asks to launch it.")
        return lines.joined(separator: "\n")
    }

    func ask(_ request: ApprovalRequest) -> ApprovalAnswer {
        // The alert needs the main thread; waiting on it from the main thread would never end.
        if Thread.isMainThread { return .unavailable("it was asked for on the main thread") }
        oneAtATime.lock()
        defer { oneAtATime.unlock() }
        if request.isClosed() { return .closed }
        // Fixed when the call asked: an alert queued behind another gets what is left, not a fresh minute.
        let deadline = request.deadline
        if Date() >= deadline { return .timeout }
        let answer = Pending<ApprovalAnswer>()
        // A run loop block rather than DispatchQueue.main.async: the main queue is serial, so a
        // modal loop run from one of its blocks would hold back every other main-queue block
        // (menu bar updates, the idle check) until the alert closed.
        let main = CFRunLoopGetMain()
        CFRunLoopPerformBlock(main, CFRunLoopMode.defaultMode.rawValue) {
            answer.deliver(ApprovalDialog.run(request, deadline: deadline))
        }
        CFRunLoopWakeUp(main)
        // The alert closes itself at the deadline; the margin only covers a main thread that
        // was busy elsewhere. A late alert sees the deadline passed and is never shown.
        return answer.wait(seconds: request.remaining + 5) ?? .timeout
    }

    /// Main thread: shows the alert and waits for a button, the deadline, or the connection to close.
    private static func run(_ request: ApprovalRequest, deadline: Date) -> ApprovalAnswer {
        if Date() >= deadline { return .timeout }
        if request.isClosed() { return .closed }
        let alert = makeAlert(request, seconds: Int(deadline.timeIntervalSinceNow.rounded(.up)))
        // runModal services only the modal panel mode, so the timer is added to that mode.
        let timer = Timer(timeInterval: tick, repeats: true) { _ in
            if request.isClosed() || Date() >= deadline { NSApp.abortModal() }
        }
        RunLoop.main.add(timer, forMode: .modalPanel)
        let previous = NSWorkspace.shared.frontmostApplication
        bringForward()
        let response = alert.runModal()
        timer.invalidate()
        giveFocusBack(to: previous)
        switch response {
        case .alertFirstButtonReturn: return .session
        case .alertSecondButtonReturn: return .always
        case .abort: return request.isClosed() ? .closed : .timeout
        default: return .deny
        }
    }

    private static func makeAlert(_ request: ApprovalRequest, seconds: Int) -> NSAlert {
        let alert = NSAlert()
        alert.alertStyle = .warning
        alert.messageText = "\(request.client) wants to control \(request.app.name)"
        alert.informativeText = "\(request.detail)\n\nIt will be able to read its windows and to click and type in it. "
            + "Without an answer this closes after \(max(1, seconds)) seconds and the call is refused."
        let allowButton = alert.addButton(withTitle: ApprovalDialog.allowSession)
        allowButton.keyEquivalent = ""
        _ = alert.addButton(withTitle: ApprovalDialog.alwaysAllow)
        let denyButton = alert.addButton(withTitle: ApprovalDialog.deny)
        denyButton.keyEquivalent = "\u{1b}"
        // Above ordinary windows even if macOS declines to activate the helper (below).
        alert.window.level = .floating
        return alert
    }

    /// The helper is an accessory app (no Dock icon, no menu bar of its own), so its alert would
    /// open behind the app the user is in. Activating it takes keyboard focus from that app for
    /// as long as the alert is up; foreground input calls then fail their focus check, which is
    /// what should happen while the user decides. macOS 14 may decline the request
    /// (cooperative activation), hence the floating window level.
    private static func bringForward() {
        if #available(macOS 14.0, *) {
            NSApp.activate()
        } else {
            NSApp.activate(ignoringOtherApps: true)
        }
    }

    /// Returns focus to the app the user was in: an accessory app with no window left keeps it otherwise.
    private static func giveFocusBack(to previous: NSRunningApplication?) {
        guard let app = previous, app.processIdentifier != ProcessInfo.processInfo.processIdentifier else { return }
        _ = app.activate(options: [])
    }
}
