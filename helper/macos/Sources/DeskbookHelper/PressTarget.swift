// Which element a call would press, and its label, for `confirm: "ask"` (Grant.swift,
// Confirmations.swift), as helper/linux/press-target.ts finds it: an accessibility action names
// its element, a left click presses what lies under the point (the hitTest method's own
// search, so another app's element never enters the table), a left drag that starts and ends
// on one element presses it, and a menu call presses the item Menus.resolve matches (the menu
// method's own rules), so the label checked is the app's, however the caller spelled it.
//
// NEVER COMPILED OR RUN (see README.md).
import ApplicationServices
import DeskbookHelperCore
import Foundation

extension MacDispatcher {
    /// The pressed thing's key within the app and its label; nil when the call presses nothing by name.
    func pressTarget(_ method: String, _ values: [String: JSONValue], pid: pid_t) throws -> (key: String, label: String)? {
        switch method {
        case "performAction":
            guard let index = values["index"]?.safeIntegerValue else { return nil }
            return ("element \(index)", pressLabel(try accessibility.table.element(index, pid: pid)))
        case "click":
            if let button = values["button"]?.stringValue, button != "left" { return nil }
            guard let x = values["x"]?.numberValue, let y = values["y"]?.numberValue else { return nil }
            return try elementAt(pid: pid, x: x, y: y)
        case "drag":
            if let button = values["button"]?.stringValue, button != "left" { return nil }
            guard let path = values["path"]?.arrayValue, let first = path.first?.arrayValue, let last = path.last?.arrayValue,
                  first.count == 2, last.count == 2,
                  let x0 = first[0].numberValue, let y0 = first[1].numberValue, let x1 = last[0].numberValue, let y1 = last[1].numberValue,
                  let start = try elementAt(pid: pid, x: x0, y: y0), let end = try elementAt(pid: pid, x: x1, y: y1),
                  start.key == end.key else { return nil }
            return start
        case "menu":
            let path = values["path"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            let item = try Menus(accessibility: accessibility).resolve(pid: pid, path: path)
            return ("menu " + item.shown.joined(separator: " > "), pressLabel(item.element))
        default:
            return nil
        }
    }

    private func elementAt(pid: pid_t, x: Double, y: Double) throws -> (key: String, label: String)? {
        guard let index = try accessibility.hitTest(pid: pid, x: x, y: y).objectValue?["index"]?.safeIntegerValue else { return nil }
        return ("element \(index)", pressLabel(try accessibility.table.element(index, pid: pid)))
    }

    /// AXTitle and AXDescription, joined: an icon button often has only the description.
    private func pressLabel(_ element: AXUIElement) -> String {
        return [AX.string(element, "AXTitle"), AX.string(element, "AXDescription")]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
