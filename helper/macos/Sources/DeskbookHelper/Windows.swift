// `windows`: the app's AX windows (AXWindows, front to back) as WindowInfo, each given the
// window server's id (CGWindowID) from CGWindowListCopyWindowInfo, and the backing scale of
// the screen it is on (NSScreen.backingScaleFactor).
//
// There is no public call from an AXUIElement to its CGWindowID (the private
// _AXUIElementGetWindow is deliberately not used), so a window's id is found by matching:
// same owner pid, layer 0, bounds equal to the AX frame within one point. Two windows of one
// app with the same frame may swap ids; a window whose frame matches nothing gets no windowId.
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

    init(accessibility: Accessibility) {
        self.accessibility = accessibility
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
        var fields: [String: JSONValue] = [
            "index": .number(Double(index)),
            "title": .string(AX.string(window, "AXTitle") ?? ""),
            "frame": AX.frameJSON(frame ?? [0, 0, 0, 0]),
            "scale": .number(scale(of: frame, screens: context.screens)),
            "focused": .bool(context.focused.map { CFEqual($0, window) } ?? false),
            "main": .bool(AX.bool(window, "AXMain") ?? context.main.map { CFEqual($0, window) } ?? false),
            "minimized": .bool(AX.bool(window, "AXMinimized") ?? false),
        ]
        if let subrole = AX.string(window, "AXSubrole"), !subrole.isEmpty { fields["subrole"] = .string(subrole) }
        if let frame = frame, let id = matchId(frame, context.serverWindows, taken: taken) {
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
