// Which element a call would press, and its label, for `confirm: "ask"` (Grant.swift,
// Confirmations.swift), as helper/linux/press-target.ts finds it: an accessibility action names
// its element, a left click presses what lies under the point (the hitTest method's own
// search, so another app's element never enters the table), a menu call presses its last item.
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
            guard let x = values["x"]?.numberValue, let y = values["y"]?.numberValue,
                  let index = try accessibility.hitTest(pid: pid, x: x, y: y).objectValue?["index"]?.safeIntegerValue else { return nil }
            return ("element \(index)", pressLabel(try accessibility.table.element(index, pid: pid)))
        case "menu":
            let path = values["path"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            return ("menu " + path.joined(separator: " > "), path.last ?? "")
        default:
            return nil
        }
    }

    /// AXTitle and AXDescription, joined: an icon button often has only the description.
    private func pressLabel(_ element: AXUIElement) -> String {
        return [AX.string(element, "AXTitle"), AX.string(element, "AXDescription")]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
