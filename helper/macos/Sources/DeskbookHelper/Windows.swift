// `windows`: the app's AX windows (AXWindows, front to back) as WindowInfo, each given the
// window server's id (CGWindowID) from CGWindowListCopyWindowInfo, and the backing scale of
// the screen it is on (NSScreen.backingScaleFactor).
//
// There is no public call from an AXUIElement to its CGWindowID. The id comes from the
// private `AXError _AXUIElementGetWindow(AXUIElementRef, CGWindowID *)` (HIServices, inside
// ApplicationServices; the signature yabai, alt-tab-macos and Hammerspoon declare), looked up
// at run time through SkyLight.lookup. When it is missing or fails, the id is found by
// matching as before: same owner pid, layer 0, bounds equal to the AX frame within one point
// (two same-framed windows of one app may then swap ids; an unmatched window gets no
// windowId).
//
// The background route also asks here for the window server's record of a window id (its
// owner and bounds), the AX window with that id, and whether it is the app's focused window.
// `windows` hands out only ids that route accepts (layer 0, owned by the pid): one rule,
// `serverWindow(pid:windowId:)`, for both.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import CoreGraphics
import DeskbookHelperCore
import Foundation

final class Windows {
    struct ServerWindow {
        let id: UInt32
        let pid: pid_t
        let bounds: CGRect
        let onScreen: Bool
    }

    /// What describing a window needs, read once per call.
    struct Context {
        let focused: AXUIElement?
        let main: AXUIElement?
        let serverWindows: [ServerWindow]
        /// Each screen's frame in global top-left coordinates, and its backing scale.
        let screens: [(CGRect, Double)]
    }

    private let accessibility: Accessibility

    private typealias GetWindow = @convention(c) (AXUIElement, UnsafeMutablePointer<CGWindowID>) -> AXError
    private static let getWindow = SkyLight.lookup("_AXUIElementGetWindow", GetWindow.self)

    init(accessibility: Accessibility) {
        self.accessibility = accessibility
    }

    /// The window server's id of an AX window, from _AXUIElementGetWindow; nil when that
    /// function is missing or fails.
    static func windowId(of window: AXUIElement) -> UInt32? {
        guard let getWindow = getWindow else { return nil }
        var id: CGWindowID = 0
        guard getWindow(window, &id) == .success, id != 0 else { return nil }
        return id
    }

    /// The layer-0 window `windowId` if `pid` owns it.
    static func serverWindow(pid: pid_t, windowId: UInt32) -> ServerWindow? {
        return serverWindows().first { $0.id == windowId && $0.pid == pid }
    }

    /// The AX window of `pid` whose id is `windowId`: by _AXUIElementGetWindow, else by frame.
    func element(pid: pid_t, windowId: UInt32) -> AXUIElement? {
        let candidates = accessibility.windows(pid)
        if let direct = candidates.first(where: { Windows.windowId(of: $0) == windowId }) { return direct }
        guard let server = Windows.serverWindow(pid: pid, windowId: windowId) else { return nil }
        return candidates.first { window in
            guard let frame = AX.frame(window) else { return false }
            return matchId(frame, [server], taken: []) == windowId
        }
    }

    /// True when the app's AXFocusedWindow is the window `windowId` (its key window, for an
    /// app in the background).
    func isFocused(pid: pid_t, windowId: UInt32) -> Bool {
        guard let focused = AX.element(accessibility.application(pid), "AXFocusedWindow") else { return false }
        if let id = Windows.windowId(of: focused) { return id == windowId }
        guard let window = element(pid: pid, windowId: windowId) else { return false }
        return CFEqual(focused, window)
    }

    /// Layer-0 windows of every app, on screen or not (minimized windows too), front to back.
    static func serverWindows() -> [ServerWindow] {
        guard let list = CGWindowListCopyWindowInfo([.optionAll, .excludeDesktopElements], kCGNullWindowID) as? [[String: Any]] else {
            return []
        }
        return list.compactMap { info in
            guard let number = info[kCGWindowNumber as String] as? NSNumber,
                  let owner = info[kCGWindowOwnerPID as String] as? NSNumber,
                  let layer = info[kCGWindowLayer as String] as? NSNumber, layer.intValue == 0,
                  let boundsInfo = info[kCGWindowBounds as String] as? NSDictionary,
                  let bounds = CGRect(dictionaryRepresentation: boundsInfo as CFDictionary) else { return nil }
            let onScreen = (info[kCGWindowIsOnscreen as String] as? NSNumber)?.boolValue ?? false
            return ServerWindow(id: number.uint32Value, pid: owner.int32Value, bounds: bounds, onScreen: onScreen)
        }
    }

    /// NSScreen frames (bottom-left origin) turned into the protocol's top-left coordinates;
    /// the first screen is the primary one, whose top-left corner is (0, 0).
    static func screens() -> [(CGRect, Double)] {
        let read: () -> [(CGRect, Double)] = {
            let all = NSScreen.screens
            guard let primaryHeight = all.first?.frame.height else { return [] }
            return all.map { screen in
                let f = screen.frame
                return (CGRect(x: f.minX, y: primaryHeight - f.maxY, width: f.width, height: f.height), Double(screen.backingScaleFactor))
            }
        }
        return Thread.isMainThread ? read() : DispatchQueue.main.sync(execute: read)
    }

    func context(pid: pid_t) -> Context {
        let app = accessibility.application(pid)
        return Context(focused: AX.element(app, "AXFocusedWindow"), main: AX.element(app, "AXMainWindow"),
                       serverWindows: Windows.serverWindows().filter { $0.pid == pid }, screens: Windows.screens())
    }

    /// `windows`.
    func list(pid: pid_t) throws -> JSONValue {
        try Accessibility.requireTrust()
        let context = self.context(pid: pid)
        var taken = Set<UInt32>()
        let infos = accessibility.windows(pid).enumerated().map { index, window in
            describe(window, index: index, context: context, taken: &taken)
        }
        return .array(infos)
    }

    /// One WindowInfo. `taken` holds the ids already given to other windows of this call.
    func describe(_ window: AXUIElement, index: Int, context: Context, taken: inout Set<UInt32>) -> JSONValue {
        let frame = AX.frame(window)
        // Worked out first: `??` chains and closures inside one big literal strain the type checker.
        let focused: Bool = context.focused.map { CFEqual($0, window) } ?? false
        let isMain: Bool = AX.bool(window, "AXMain") ?? (context.main.map { CFEqual($0, window) } ?? false)
        var fields: [String: JSONValue] = [
            "index": .number(Double(index)),
            "title": .string(AX.string(window, "AXTitle") ?? ""),
            "frame": AX.frameJSON(frame ?? [0, 0, 0, 0]),
            "scale": .number(scale(of: frame, screens: context.screens)),
            "focused": .bool(focused),
            "main": .bool(isMain),
            "minimized": .bool(AX.bool(window, "AXMinimized") ?? false),
        ]
        if let subrole = AX.string(window, "AXSubrole"), !subrole.isEmpty { fields["subrole"] = .string(subrole) }
        // Only ids the background route accepts: the app's own layer-0 windows. The private
        // lookup also answers for panels and sheets on other layers, which `mode: "background"`
        // would then refuse as no_window; such a window gets no windowId.
        let id: UInt32?
        if let direct = Windows.windowId(of: window) {
            id = context.serverWindows.contains(where: { $0.id == direct }) ? direct : nil
        } else {
            id = frame.flatMap { matchId($0, context.serverWindows, taken: taken) }
        }
        if let id = id {
            taken.insert(id)
            fields["windowId"] = .number(Double(id))
        }
        return .object(fields)
    }

    private func matchId(_ frame: [Double], _ candidates: [ServerWindow], taken: Set<UInt32>) -> UInt32? {
        let matching = candidates.filter { window in
            !taken.contains(window.id)
                && abs(Double(window.bounds.minX) - frame[0]) <= 1 && abs(Double(window.bounds.minY) - frame[1]) <= 1
                && abs(Double(window.bounds.width) - frame[2]) <= 1 && abs(Double(window.bounds.height) - frame[3]) <= 1
        }
        return (matching.first(where: { $0.onScreen }) ?? matching.first)?.id
    }

    /// The backing scale of the screen holding the frame's centre (else the primary's, else 1).
    private func scale(of frame: [Double]?, screens: [(CGRect, Double)]) -> Double {
        if let frame = frame {
            let centre = CGPoint(x: frame[0] + frame[2] / 2, y: frame[1] + frame[3] / 2)
            if let screen = screens.first(where: { $0.0.contains(centre) }) { return screen.1 }
        }
        return screens.first?.1 ?? 1
    }
}
