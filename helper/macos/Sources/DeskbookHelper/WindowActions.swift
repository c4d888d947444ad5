// `windowAction`: focus, move, resize, minimize or close one window through its AX attributes
// and actions (AXRaise, AXPosition, AXSize, AXMinimized, the AXCloseButton's AXPress), which
// reach background windows too; then the window is read back, since apps clamp sizes and may
// answer a close with a "save changes?" sheet.
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
    private static let settleSeconds = 1.0
    private static let closeSeconds = 2.0

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
        switch request.action {
        case "focus":
            _ = AXUIElementSetAttributeValue(window, "AXMinimized" as CFString, kCFBooleanFalse)
            NSRunningApplication(processIdentifier: pid)?.activate(options: [])
            try check(AXUIElementPerformAction(window, "AXRaise" as CFString), "AXRaise")
            _ = AXUIElementSetAttributeValue(window, "AXMain" as CFString, kCFBooleanTrue)
        case "move":
            var point = CGPoint(x: request.x ?? 0, y: request.y ?? 0)
            guard let value = AXValueCreate(.cgPoint, &point) else { throw HelperError(.failed, "cannot make an AXValue point") }
            try check(AXUIElementSetAttributeValue(window, "AXPosition" as CFString, value), "AXPosition")
        case "resize":
            var size = CGSize(width: request.width ?? 1, height: request.height ?? 1)
            guard let value = AXValueCreate(.cgSize, &size) else { throw HelperError(.failed, "cannot make an AXValue size") }
            try check(AXUIElementSetAttributeValue(window, "AXSize" as CFString, value), "AXSize")
        case "minimize":
            try check(AXUIElementSetAttributeValue(window, "AXMinimized" as CFString, kCFBooleanTrue), "AXMinimized")
        case "close":
            guard let button = AX.element(window, "AXCloseButton") else {
                throw HelperError(.actionFailed, "window \(request.windowId) has no close button")
            }
            try check(AXUIElementPerformAction(button, "AXPress" as CFString), "AXPress on its close button")
            return readBack(pid: pid, windowId: request.windowId, until: { $0 == nil }, seconds: WindowActions.closeSeconds)
        default:
            throw HelperError(.badRequest, "windowAction params: unknown action \(request.action)")
        }
        return readBack(pid: pid, windowId: request.windowId, until: { _ in false }, seconds: WindowActions.settleSeconds / 4)
    }

    private func check(_ error: AXError, _ what: String) throws {
        guard error == .success else {
            throw HelperError(.actionFailed, "the window refused \(what) (AXError \(error.rawValue))")
        }
    }

    /// `{window}` as it is once `done` holds or `seconds` passed; `{}` when the window is gone.
    private func readBack(pid: pid_t, windowId: UInt32, until done: (JSONValue?) -> Bool, seconds: Double) -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        var found = describe(pid: pid, windowId: windowId)
        while !done(found) && Date() < deadline {
            Thread.sleep(forTimeInterval: WindowActions.pollSeconds)
            found = describe(pid: pid, windowId: windowId)
        }
        guard let window = found else { return .object([:]) }
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
