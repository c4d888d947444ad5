// `windowAction`: focus, move, resize, minimize or close one window through its AX attributes
// and actions (AXRaise, AXPosition, AXSize, AXMinimized, the AXCloseButton's AXPress), which
// reach background windows too; then the window is read back, since apps clamp sizes and may
// answer a close with a "save changes?" sheet. It is read back once the app has answered, as
// on Linux, not after a fixed time: the window's own attributes are polled until they show the
// action done (the frame asked for, or a frame that stays put, which is how a clamped size
// shows; AXMinimized; AXMain; gone, a sheet or a new window for a close), and only when
// nothing answers within 5 s is the window read back as it is.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import DeskbookHelperCore
import Foundation

final class WindowActions {
    private let accessibility: Accessibility
    private let windows: Windows
    private static let pollSeconds = 0.02
    /// How long the app gets to answer before the window is read back as it is (Linux: 5 s too).
    private static let answerSeconds = 5.0
    /// A frame that has not changed for this long after the request is the app's answer: a size
    /// clamped to the app's limits or a position to the screen never becomes the one asked for.
    private static let steadySeconds = 0.25

    init(accessibility: Accessibility, windows: Windows) {
        self.accessibility = accessibility
        self.windows = windows
    }

    struct Request {
        let windowId: UInt32
        let action: String
        let x: Double?
        let y: Double?
        let width: Double?
        let height: Double?
    }

    func perform(pid: pid_t, _ request: Request) throws -> JSONValue {
        try Accessibility.requireTrust()
        guard let window = windows.element(pid: pid, windowId: request.windowId) else {
            throw HelperError(.noWindow, "window \(request.windowId) is not a window of pid \(pid)")
        }
        let done: () -> Bool
        switch request.action {
        case "focus":
            _ = AXUIElementSetAttributeValue(window, "AXMinimized" as CFString, kCFBooleanFalse)
            NSRunningApplication(processIdentifier: pid)?.activate(options: [])
            try check(AXUIElementPerformAction(window, "AXRaise" as CFString), "AXRaise")
            _ = AXUIElementSetAttributeValue(window, "AXMain" as CFString, kCFBooleanTrue)
            // AXMain where the window has it, else the app being active.
            done = {
                let main = AX.bool(window, "AXMain") ?? (NSRunningApplication(processIdentifier: pid)?.isActive ?? false)
                return main && AX.bool(window, "AXMinimized") != true
            }
        case "move":
            var point = CGPoint(x: request.x ?? 0, y: request.y ?? 0)
            guard let value = AXValueCreate(.cgPoint, &point) else { throw HelperError(.failed, "cannot make an AXValue point") }
            let before = AX.frame(window)
            try check(AXUIElementSetAttributeValue(window, "AXPosition" as CFString, value), "AXPosition")
            let asked = point
            done = settled(window, from: before, to: { frame in WindowActions.near(frame[0], asked.x) && WindowActions.near(frame[1], asked.y) })
        case "resize":
            var size = CGSize(width: request.width ?? 1, height: request.height ?? 1)
            guard let value = AXValueCreate(.cgSize, &size) else { throw HelperError(.failed, "cannot make an AXValue size") }
            let before = AX.frame(window)
            try check(AXUIElementSetAttributeValue(window, "AXSize" as CFString, value), "AXSize")
            let asked = size
            done = settled(window, from: before, to: { frame in WindowActions.near(frame[2], asked.width) && WindowActions.near(frame[3], asked.height) })
        case "minimize":
            try check(AXUIElementSetAttributeValue(window, "AXMinimized" as CFString, kCFBooleanTrue), "AXMinimized")
            done = { AX.bool(window, "AXMinimized") == true }
        case "close":
            guard let button = AX.element(window, "AXCloseButton") else {
                throw HelperError(.actionFailed, "window \(request.windowId) has no close button")
            }
            let earlier = accessibility.windows(pid).count
            try check(AXUIElementPerformAction(button, "AXPress" as CFString), "AXPress on its close button")
            // Gone (checked for every action below), or the app answered with a sheet or a window
            // of its own (a "save changes?" prompt): the rest is up to the person.
            done = { WindowActions.hasSheet(window) || self.accessibility.windows(pid).count > earlier }
        default:
            throw HelperError(.badRequest, "windowAction params: unknown action \(request.action)")
        }
        let deadline = Date().addingTimeInterval(WindowActions.answerSeconds)
        while !AX.isGone(window) && !done() && Date() < deadline {
            Thread.sleep(forTimeInterval: WindowActions.pollSeconds)
        }
        return readBack(pid: pid, windowId: request.windowId)
    }

    /// A move or resize is over when the frame is `wanted`, or when it has stayed the same for
    /// steadySeconds: moved there, or as far as the app let it (the first read counts as a change
    /// when it differs from the frame `before` the request).
    private func settled(_ window: AXUIElement, from before: [Double]?, to wanted: @escaping ([Double]) -> Bool) -> () -> Bool {
        var last = before
        var since = Date()
        return {
            guard let frame = AX.frame(window) else { return false }
            if wanted(frame) { return true }
            if last != frame {
                last = frame
                since = Date()
                return false
            }
            return Date().timeIntervalSince(since) >= WindowActions.steadySeconds
        }
    }

    private static func near(_ value: Double, _ wanted: CGFloat) -> Bool {
        return abs(value - Double(wanted)) < 1
    }

    private static func hasSheet(_ window: AXUIElement) -> Bool {
        return AX.elements(window, "AXChildren").contains { AX.string($0, "AXRole") == "AXSheet" }
    }

    private func check(_ error: AXError, _ what: String) throws {
        // As on Linux: a window that closed between the look-up and the action is no_window.
        if error == .invalidUIElement {
            throw HelperError(.noWindow, "the window is gone (it closed before \(what) reached it)")
        }
        guard error == .success else {
            throw HelperError(.actionFailed, "the window refused \(what) (AXError \(error.rawValue))")
        }
    }

    /// `{window}` as it is now; `{}` when the window is gone.
    private func readBack(pid: pid_t, windowId: UInt32) -> JSONValue {
        guard let window = describe(pid: pid, windowId: windowId) else { return .object([:]) }
        return .object(["window": window])
    }

    private func describe(pid: pid_t, windowId: UInt32) -> JSONValue? {
        let context = windows.context(pid: pid)
        var taken = Set<UInt32>()
        for (index, element) in accessibility.windows(pid).enumerated() {
            let info = windows.describe(element, index: index, context: context, taken: &taken)
            if info.objectValue?["windowId"]?.safeIntegerValue == Int(windowId) { return info }
        }
        return nil
    }
}
