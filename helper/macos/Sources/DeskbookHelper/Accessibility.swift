// The AX methods: axTree, hitTest, elementFrame, actionNames, performAction, setValue,
// focusElement, selectText, and `forget`'s element table. Everything goes through
// ApplicationServices' AXUIElement functions, so it works with the app in the background.
// AX role, subrole and action names are passed through unchanged (the protocol's names ARE
// the macOS ones). Every attribute is read by its literal name ("AXRole"), not through the
// kAX…Attribute constants, so nothing depends on how Swift imports those macros.
//
// NEVER COMPILED OR RUN (see README.md).
import ApplicationServices
import DeskbookHelperCore
import Foundation

/// Small readers over AXUIElementCopyAttributeValue. A missing or unreadable attribute is nil:
/// apps leave most attributes out, and one bad attribute must not cost a whole tree.
enum AX {
    static func value(_ element: AXUIElement, _ attribute: String) -> CFTypeRef? {
        var value: CFTypeRef?
        guard AXUIElementCopyAttributeValue(element, attribute as CFString, &value) == .success else { return nil }
        return value
    }

    static func string(_ element: AXUIElement, _ attribute: String) -> String? {
        return value(element, attribute) as? String
    }

    static func bool(_ element: AXUIElement, _ attribute: String) -> Bool? {
        return value(element, attribute) as? Bool
    }

    static func element(_ element: AXUIElement, _ attribute: String) -> AXUIElement? {
        guard let found = value(element, attribute), CFGetTypeID(found) == AXUIElementGetTypeID() else { return nil }
        return (found as! AXUIElement)
    }

    static func elements(_ element: AXUIElement, _ attribute: String) -> [AXUIElement] {
        return (value(element, attribute) as? [AXUIElement]) ?? []
    }

    /// An attribute value as text: strings as they are, numbers (and booleans) as digits.
    static func text(_ element: AXUIElement, _ attribute: String) -> String? {
        let found = value(element, attribute)
        if let text = found as? String { return text }
        if let number = found as? NSNumber { return number.stringValue }
        return nil
    }

    /// [x, y, width, height] from AXPosition and AXSize (global points, top-left origin, as
    /// the protocol wants); nil when either is missing or not an AXValue of the right type.
    static func frame(_ element: AXUIElement) -> [Double]? {
        guard let position = value(element, "AXPosition"), let size = value(element, "AXSize"),
              CFGetTypeID(position) == AXValueGetTypeID(), CFGetTypeID(size) == AXValueGetTypeID() else { return nil }
        var point = CGPoint.zero
        var extent = CGSize.zero
        guard AXValueGetValue(position as! AXValue, .cgPoint, &point),
              AXValueGetValue(size as! AXValue, .cgSize, &extent) else { return nil }
        return [Double(point.x), Double(point.y), Double(extent.width), Double(extent.height)]
    }

    static func actionNames(_ element: AXUIElement) -> [String] {
        var names: CFArray?
        guard AXUIElementCopyActionNames(element, &names) == .success else { return [] }
        return (names as? [String]) ?? []
    }

    static func isSettable(_ element: AXUIElement, _ attribute: String) -> Bool {
        var settable = DarwinBoolean(false)
        guard AXUIElementIsAttributeSettable(element, attribute as CFString, &settable) == .success else { return false }
        return settable.boolValue
    }

    /// True when the element no longer exists (the app says kAXErrorInvalidUIElement).
    static func isGone(_ element: AXUIElement) -> Bool {
        var role: CFTypeRef?
        return AXUIElementCopyAttributeValue(element, "AXRole" as CFString, &role) == .invalidUIElement
    }

    static func frameJSON(_ frame: [Double]) -> JSONValue {
        return .array(frame.map { .number($0) })
    }
}

/// Stable indices: one table for the helper's life. The same element (CFEqual) keeps its
/// index until `forget`; indices start at 1, as on Linux. Every entry remembers the pid it
/// was handed out for, so an index never reaches past the app the gate admitted.
final class ElementTable {
    private struct Key: Hashable {
        let element: AXUIElement
        static func == (a: Key, b: Key) -> Bool { return CFEqual(a.element, b.element) }
        func hash(into hasher: inout Hasher) { hasher.combine(CFHash(element)) }
    }

    private struct Entry {
        let element: AXUIElement
        let pid: pid_t
    }

    private let lock = NSLock()
    private var nextIndex = 1
    private var byKey: [Key: Int] = [:]
    private var byIndex: [Int: Entry] = [:]
    private var byPid: [pid_t: [Int]] = [:]

    func index(of element: AXUIElement, pid: pid_t) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let key = Key(element: element)
        if let known = byKey[key] { return known }
        let index = nextIndex
        nextIndex += 1
        byKey[key] = index
        byIndex[index] = Entry(element: element, pid: pid)
        byPid[pid, default: []].append(index)
        return index
    }

    /// The element behind `index`, or stale_index: never handed out, another app's, or gone.
    func element(_ index: Int, pid: pid_t) throws -> AXUIElement {
        lock.lock()
        let entry = byIndex[index]
        lock.unlock()
        guard let found = entry else {
            throw HelperError(.staleIndex, "no element \(index): read the tree again")
        }
        guard found.pid == pid else {
            throw HelperError(.staleIndex, "element \(index) is not an element of pid \(pid); read this app's tree")
        }
        if AX.isGone(found.element) {
            drop(index)
            throw HelperError(.staleIndex, "element \(index) no longer exists: read the tree again")
        }
        return found.element
    }

    /// The protocol's `forget`: every index of the app turns stale.
    func forget(pid: pid_t) {
        lock.lock()
        defer { lock.unlock() }
        for index in byPid[pid] ?? [] {
            if let entry = byIndex.removeValue(forKey: index) { byKey.removeValue(forKey: Key(element: entry.element)) }
        }
        byPid.removeValue(forKey: pid)
    }

    private func drop(_ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        if let entry = byIndex.removeValue(forKey: index) { byKey.removeValue(forKey: Key(element: entry.element)) }
    }
}

struct TreeLimits {
    var maxNodes: Int
    var maxDepth: Int
    var maxText: Int
}

final class Accessibility {
    let table = ElementTable()

    /// Roles whose AXPress is "the obvious action": left out of a node's `actions`.
    private static let pressIsObvious: Set<String> = [
        "AXButton", "AXMenuItem", "AXMenuBarItem", "AXCheckBox", "AXRadioButton", "AXPopUpButton", "AXLink",
    ]

    /// `permission` unless this process is a trusted accessibility client.
    static func requireTrust() throws {
        if !AXIsProcessTrusted() {
            throw HelperError(.permission, "Accessibility is not granted to the Deskbook helper (System Settings > Privacy & Security > Accessibility)")
        }
    }

    func application(_ pid: pid_t) -> AXUIElement {
        return AXUIElementCreateApplication(pid)
    }

    /// The app's windows in AX order (front to back); `windows` and `axTree` index into this.
    func windows(_ pid: pid_t) -> [AXUIElement] {
        return AX.elements(application(pid), "AXWindows")
    }

    /// `axTree`: the chosen window's elements, depth first, within the limits.
    func tree(pid: pid_t, window: Int?, limits: TreeLimits, menus: Bool, describe: (AXUIElement, Int) -> JSONValue) throws -> JSONValue {
        try Accessibility.requireTrust()
        let app = application(pid)
        let all = windows(pid)
        let chosen: Int
        if let wanted = window {
            guard wanted < all.count else {
                throw HelperError(.noWindow, "pid \(pid) has \(all.count) window(s); there is no window \(wanted)")
            }
            chosen = wanted
        } else if let focused = AX.element(app, "AXFocusedWindow"), let at = all.firstIndex(where: { CFEqual($0, focused) }) {
            chosen = at
        } else if let main = AX.element(app, "AXMainWindow"), let at = all.firstIndex(where: { CFEqual($0, main) }) {
            chosen = at
        } else if !all.isEmpty {
            chosen = 0
        } else {
            throw HelperError(.noWindow, "pid \(pid) has no window")
        }
        var nodes: [JSONValue] = []
        var truncated = walk(all[chosen], pid: pid, limits: limits, into: &nodes)
        if menus, let menuBar = AX.element(app, "AXMenuBar") {
            truncated = walk(menuBar, pid: pid, limits: limits, into: &nodes) || truncated
        }
        return .object(["window": describe(all[chosen], chosen), "nodes": .array(nodes), "truncated": .bool(truncated)])
    }

    /// Pre-order from `root` (d = 0). True when maxNodes or maxDepth left something out.
    private func walk(_ root: AXUIElement, pid: pid_t, limits: TreeLimits, into nodes: inout [JSONValue]) -> Bool {
        var truncated = false
        var stack: [(AXUIElement, Int)] = [(root, 0)]
        while let entry = stack.popLast() {
            let (element, depth) = entry
            if nodes.count >= limits.maxNodes { return true }
            nodes.append(node(element, pid: pid, depth: depth, maxText: limits.maxText))
            let children = AX.elements(element, "AXChildren")
            if children.isEmpty { continue }
            if depth >= limits.maxDepth {
                truncated = true
                continue
            }
            for child in children.reversed() { stack.append((child, depth + 1)) }
        }
        return truncated
    }

    private func node(_ element: AXUIElement, pid: pid_t, depth: Int, maxText: Int) -> JSONValue {
        let role = AX.string(element, "AXRole") ?? "AXUnknown"
        var fields: [String: JSONValue] = [
            "i": .number(Double(table.index(of: element, pid: pid))),
            "d": .number(Double(depth)),
            "role": .string(role.isEmpty ? "AXUnknown" : role),
        ]
        let texts: [(String, String)] = [
            ("subrole", "AXSubrole"), ("title", "AXTitle"), ("desc", "AXDescription"), ("help", "AXHelp"),
            ("placeholder", "AXPlaceholderValue"), ("id", "AXIdentifier"),
        ]
        for (field, attribute) in texts {
            if let text = AX.string(element, attribute), !text.isEmpty { fields[field] = .string(clip(text, maxText)) }
        }
        if let value = AX.text(element, "AXValue"), !value.isEmpty { fields["value"] = .string(clip(value, maxText)) }
        if let frame = AX.frame(element) { fields["frame"] = AX.frameJSON(frame) }
        var actions = AX.actionNames(element)
        if Accessibility.pressIsObvious.contains(role) { actions.removeAll { $0 == "AXPress" } }
        if !actions.isEmpty { fields["actions"] = .array(actions.map { .string($0) }) }
        if AX.bool(element, "AXFocused") == true { fields["focused"] = .bool(true) }
        if AX.bool(element, "AXSelected") == true { fields["selected"] = .bool(true) }
        if AX.bool(element, "AXEnabled") == false { fields["disabled"] = .bool(true) }
        if AX.isSettable(element, "AXValue") { fields["settable"] = .bool(true) }
        return .object(fields)
    }

    /// maxText: longer strings are cut to maxText characters, the last being "…" (UTF-16
    /// units, as JavaScript counts; a cut never splits a surrogate pair).
    private func clip(_ text: String, _ maxText: Int) -> String {
        if text.utf16.count <= maxText { return text }
        if maxText < 1 { return "" }
        var kept = ""
        var units = 0
        for character in text {
            let size = String(character).utf16.count
            if units + size > maxText - 1 { break }
            kept.append(character)
            units += size
        }
        return kept + "…"
    }

    /// `hitTest`: the deepest element of this app at a screen point, or {}.
    func hitTest(pid: pid_t, x: Double, y: Double) throws -> JSONValue {
        try Accessibility.requireTrust()
        var hit: AXUIElement?
        let error = AXUIElementCopyElementAtPosition(application(pid), Float(x), Float(y), &hit)
        guard error == .success, let element = hit, belongs(element, to: pid), let frame = AX.frame(element) else {
            return .object([:])
        }
        let role = AX.string(element, "AXRole") ?? "AXUnknown"
        return .object([
            "index": .number(Double(table.index(of: element, pid: pid))),
            "role": .string(role.isEmpty ? "AXUnknown" : role),
            "actions": .array(AX.actionNames(element).map { .string($0) }),
            "frame": AX.frameJSON(frame),
        ])
    }

    /// True when `element` is `pid`'s own, or sits in one of its windows (a remote view such as
    /// an open panel). The table files it under `pid`, so another app's element must not get in:
    /// whether hit-testing an app element can return a window of another app on top is not documented.
    private func belongs(_ element: AXUIElement, to pid: pid_t) -> Bool {
        var owner: pid_t = 0
        if AXUIElementGetPid(element, &owner) == .success && owner == pid { return true }
        guard let window = AX.element(element, "AXWindow") else { return false }
        return windows(pid).contains { CFEqual($0, window) }
    }

    func elementFrame(pid: pid_t, index: Int) throws -> JSONValue {
        try Accessibility.requireTrust()
        let element = try table.element(index, pid: pid)
        guard let frame = AX.frame(element) else {
            throw HelperError(.noFrame, "element \(index) has no frame on screen")
        }
        return .object(["frame": AX.frameJSON(frame)])
    }

    func actionNames(pid: pid_t, index: Int) throws -> JSONValue {
        try Accessibility.requireTrust()
        let element = try table.element(index, pid: pid)
        return .object(["actions": .array(AX.actionNames(element).map { .string($0) })])
    }

    func performAction(pid: pid_t, index: Int, action: String) throws -> JSONValue {
        try Accessibility.requireTrust()
        let element = try table.element(index, pid: pid)
        let error = AXUIElementPerformAction(element, action as CFString)
        guard error == .success else {
            throw HelperError(.actionFailed, "element \(index) refused \(action) (AXError \(error.rawValue))")
        }
        return .object([:])
    }

    /// `setValue`: a string, number or boolean written to `attribute` (default AXValue).
    func setValue(pid: pid_t, index: Int, value: JSONValue, attribute: String) throws -> JSONValue {
        try Accessibility.requireTrust()
        let element = try table.element(index, pid: pid)
        let written: CFTypeRef
        switch value {
        case .string(let text): written = text as CFString
        case .number(let number): written = NSNumber(value: number)
        case .bool(let flag):
            let boolean: CFBoolean = flag ? kCFBooleanTrue : kCFBooleanFalse
            written = boolean
        default: throw HelperError(.badRequest, "setValue params: value must be a string, number or boolean")
        }
        guard AX.isSettable(element, attribute) else {
            throw HelperError(.actionFailed, "\(attribute) of element \(index) is not settable")
        }
        let error = AXUIElementSetAttributeValue(element, attribute as CFString, written)
        guard error == .success else {
            throw HelperError(.actionFailed, "element \(index) refused a new \(attribute) (AXError \(error.rawValue))")
        }
        return .object([:])
    }

    func focusElement(pid: pid_t, index: Int) throws -> JSONValue {
        try Accessibility.requireTrust()
        let element = try table.element(index, pid: pid)
        let error = AXUIElementSetAttributeValue(element, "AXFocused" as CFString, kCFBooleanTrue)
        guard error == .success else {
            throw HelperError(.actionFailed, "element \(index) cannot take focus (AXError \(error.rawValue))")
        }
        return .object([:])
    }

    /// `selectText`: AXSelectedTextRange, whose offsets are UTF-16 units like the protocol's.
    func selectText(pid: pid_t, index: Int, start: Int, length: Int) throws -> JSONValue {
        try Accessibility.requireTrust()
        let element = try table.element(index, pid: pid)
        var range = CFRange(location: start, length: length)
        guard let wrapped = AXValueCreate(.cfRange, &range) else {
            throw HelperError(.failed, "could not build the text range")
        }
        let error = AXUIElementSetAttributeValue(element, "AXSelectedTextRange" as CFString, wrapped)
        guard error == .success else {
            throw HelperError(.actionFailed, "element \(index) refused the selection (AXError \(error.rawValue))")
        }
        return .object([:])
    }
}
