// `menu`: presses a menu-bar item by its path of titles. The app's AXMenuBar is walked level
// by level (an AXMenuBarItem or AXMenuItem holds its items inside an AXMenu), each title
// matched by the core's MenuMatch (the Linux helper's rules), and the last item gets AXPress,
// which works with its menu closed and the app in the background. macOS apps have one menu
// bar, so the protocol's `window` param changes nothing here.
//
// NEVER COMPILED OR RUN (see README.md).
import ApplicationServices
import DeskbookHelperCore
import Foundation

final class Menus {
    private let accessibility: Accessibility

    init(accessibility: Accessibility) {
        self.accessibility = accessibility
    }

    func press(pid: pid_t, path: [String]) throws -> JSONValue {
        let (current, shown) = try resolve(pid: pid, path: path)
        let error = AXUIElementPerformAction(current, "AXPress" as CFString)
        guard error == .success else {
            throw HelperError(.actionFailed, "the menu item \(MenuMatch.describe(shown)) refused AXPress (AXError \(error.rawValue))")
        }
        return .object(["path": .array(shown.map { .string($0) })])
    }

    /// The item `path` names (an enabled one) and each level's title as the app shows it. The
    /// confirmation rule (PressTarget.swift) checks the label of the item this finds.
    func resolve(pid: pid_t, path: [String]) throws -> (element: AXUIElement, shown: [String]) {
        try Accessibility.requireTrust()
        guard let bar = AX.element(accessibility.application(pid), "AXMenuBar") else {
            throw HelperError(.notFound, "pid \(pid) has no menu bar")
        }
        var current = bar
        var shown: [String] = []
        for wanted in path {
            let items = Menus.items(of: current)
            let labels = items.map(Menus.label)
            let at = try MenuMatch.match(labels, wanted: wanted, above: shown)
            current = items[at]
            shown.append(labels[at])
        }
        if AX.bool(current, "AXEnabled") == false {
            throw HelperError(.actionFailed, "the menu item \(MenuMatch.describe(shown)) is disabled")
        }
        return (current, shown)
    }

    /// One level's items, looking through AXMenu containers; separators (no title) left out.
    static func items(of element: AXUIElement) -> [AXUIElement] {
        return AX.elements(element, "AXChildren").flatMap { child -> [AXUIElement] in
            let role = AX.string(child, "AXRole") ?? ""
            if role == "AXMenu" { return items(of: child) }
            guard role == "AXMenuBarItem" || role == "AXMenuItem", !label(child).isEmpty else { return [] }
            return [child]
        }
    }

    static func label(_ element: AXUIElement) -> String {
        return (AX.string(element, "AXTitle") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
