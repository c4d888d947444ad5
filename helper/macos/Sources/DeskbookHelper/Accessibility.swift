// The AX methods: axTree, hitTest, elementFrame, actionNames, performAction, setValue,
// focusElement, selectText, and `forget`'s element table. Everything goes through
// ApplicationServices' AXUIElement functions, so it works with the app in the background.
// AX role, subrole and action names are passed through unchanged (the protocol's names ARE
// the macOS ones). Every attribute is read by its literal name ("AXRole"), not through the
// kAX…Attribute constants, so nothing depends on how Swift imports those macros.
//
// Every AX call is bounded: main.swift sets a 1 s messaging timeout on the system-wide element
// at start-up (Apple: set there, it applies to every element; AT-SPI's default is 800 ms), so
// an app that stopped answering costs one second per call, not the system default. `axTree`
// reads each element's attributes in one round trip (AXUIElementCopyMultipleAttributeValues),
// leaves out what is not on screen (TreeWalk, in the core), and stops at a time budget with
// `truncated`. The element table forgets an app's elements when it quits.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import DeskbookHelperCore
import Foundation

/// Small readers over AXUIElementCopyAttributeValue. A missing or unreadable attribute is nil:
/// apps leave most attributes out, and one bad attribute must not cost a whole tree.
enum AX {
    /// Seconds an app may take to answer one AX message.
    static let messagingTimeout: Float = 1

    /// The global timeout: on the system-wide element it applies to every element.
    static func setGlobalTimeout() {
        _ = AXUIElementSetMessagingTimeout(AXUIElementCreateSystemWide(), messagingTimeout)
    }

    /// What one tree node needs, read in one message.
    static let nodeAttributes = [
        "AXRole", "AXSubrole", "AXTitle", "AXDescription", "AXHelp", "AXPlaceholderValue", "AXIdentifier",
        "AXValue", "AXPosition", "AXSize", "AXFocused", "AXSelected", "AXEnabled", "AXChildren",
    ]

    /// Several attributes in one round trip; an attribute the element lacks is absent (the
    /// array holds an AXValue of type .axError in its place). The error is the call's own:
    /// .cannotComplete for an app that did not answer in time, .invalidUIElement for one gone.
    static func values(_ element: AXUIElement, _ names: [String]) -> (values: [String: CFTypeRef], error: AXError) {
        var raw: CFArray?
        let error = AXUIElementCopyMultipleAttributeValues(element, names as CFArray, AXCopyMultipleAttributeOptions(rawValue: 0), &raw)
        guard error == .success, let list = raw as? [AnyObject], list.count == names.count else { return ([:], error) }
        var found: [String: CFTypeRef] = [:]
        for (name, value) in zip(names, list) where !isErrorValue(value) && !(value is NSNull) {
            found[name] = value
        }
        return (found, .success)
    }

    private static func isErrorValue(_ value: AnyObject) -> Bool {
        return CFGetTypeID(value) == AXValueGetTypeID() && AXValueGetType(value as! AXValue) == .axError
    }

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
        return text(value(element, attribute))
    }

    static func text(_ found: CFTypeRef?) -> String? {
        if let text = found as? String { return text }
        if let number = found as? NSNumber { return number.stringValue }
        return nil
    }

    /// [x, y, width, height] from AXPosition and AXSize (global points, top-left origin, as
    /// the protocol wants); nil when either is missing or not an AXValue of the right type.
    static func frame(_ element: AXUIElement) -> [Double]? {
        return frame(position: value(element, "AXPosition"), size: value(element, "AXSize"))
    }

    /// The same from values already read.
    static func frame(position: CFTypeRef?, size: CFTypeRef?) -> [Double]? {
        guard let position = position, let size = size,
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

    /// Drops the entries of every app that no longer runs (a backstop for a missed
    /// termination notification; a reused pid must not inherit a quit app's indices).
    func forgetQuit(isRunning: (pid_t) -> Bool) {
        lock.lock()
        let pids = Array(byPid.keys)
        lock.unlock()
        for pid in pids where !isRunning(pid) { forget(pid: pid) }
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
    /// How long one `axTree` may read before it answers with what it has (`truncated`).
    static let treeBudget: TimeInterval = 10
    private var terminationObserver: NSObjectProtocol?

    init() {
        // The table keys elements of every app the helper has read; a quit app's go with it.
        let table = self.table
        terminationObserver = NSWorkspace.shared.notificationCenter.addObserver(
            forName: NSWorkspace.didTerminateApplicationNotification, object: nil, queue: nil
        ) { note in
            if let app = note.userInfo?[NSWorkspace.applicationUserInfoKey] as? NSRunningApplication {
                table.forget(pid: app.processIdentifier)
            }
        }
    }

    deinit {
        if let observer = terminationObserver { NSWorkspace.shared.notificationCenter.removeObserver(observer) }
    }

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

    /// `axTree`: the chosen window's elements, depth first, within the limits; the menu bar
    /// (with `menus`) nested in the window at depth 1; what is not on screen left out.
    func tree(pid: pid_t, window: Int?, limits: TreeLimits, menus: Bool, describe: (AXUIElement, Int) -> JSONValue) throws -> JSONValue {
        try Accessibility.requireTrust()
        table.forgetQuit { owner in
            guard let running = NSRunningApplication(processIdentifier: owner) else { return false }
            return !running.isTerminated
        }
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
        let root = all[chosen]
        // A window the window server does not show (minimized, hidden, on another Space): every
        // node stays, none has a frame.
        let shown = Accessibility.isOnScreen(root, pid: pid)
        let screens = shown ? Windows.screens().map { ScreenRect(x: Double($0.0.minX), y: Double($0.0.minY), width: Double($0.0.width), height: Double($0.0.height)) } : []
        let deadline = Date().addingTimeInterval(Accessibility.treeBudget)
        let walked = TreeWalk.walk(
            window: root, menuBar: menus ? AX.element(app, "AXMenuBar") : nil, screens: screens, prune: shown,
            limits: TreeWalk.Limits(maxNodes: limits.maxNodes, maxDepth: limits.maxDepth),
            expired: { Date() >= deadline },
            read: { (element: AXUIElement) in Accessibility.read(element) })
        let nodes = walked.placed.map { placed in
            node(placed.payload, pid: pid, depth: placed.depth, frame: placed.frame, maxText: limits.maxText)
        }
        return .object(["window": describe(root, chosen), "nodes": .array(nodes), "truncated": .bool(walked.truncated)])
    }

    /// One element's attributes, read in one message.
    struct NodeRead {
        let element: AXUIElement
        let values: [String: CFTypeRef]
    }

    private static func read(_ element: AXUIElement) -> TreeWalk.Read<AXUIElement, NodeRead> {
        // An element that did not answer (or is gone) is kept, childless, as AXUnknown.
        let values = AX.values(element, AX.nodeAttributes).values
        let frame = AX.frame(position: values["AXPosition"], size: values["AXSize"]).flatMap { ScreenRect(frame: $0) }
        let children = (values["AXChildren"] as? [AXUIElement]) ?? []
        let clips = (values["AXRole"] as? String) == "AXScrollArea"
        return TreeWalk.Read(frame: frame, clipsChildren: clips, children: children, payload: NodeRead(element: element, values: values))
    }

    /// Whether the window server shows this window now; true when that cannot be told
    /// (no window id), unless AX says it is minimized.
    private static func isOnScreen(_ window: AXUIElement, pid: pid_t) -> Bool {
        if let id = Windows.windowId(of: window), let server = Windows.serverWindows().first(where: { $0.id == id && $0.pid == pid }) {
            return server.onScreen
        }
        return AX.bool(window, "AXMinimized") != true
    }

    private func node(_ read: NodeRead, pid: pid_t, depth: Int, frame: ScreenRect?, maxText: Int) -> JSONValue {
        let values = read.values
        let element = read.element
        let role = (values["AXRole"] as? String) ?? "AXUnknown"
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
            if let text = values[attribute] as? String, !text.isEmpty { fields[field] = .string(clip(text, maxText)) }
        }
        if let value = AX.text(values["AXValue"]), !value.isEmpty { fields["value"] = .string(clip(value, maxText)) }
        if let frame = frame { fields["frame"] = AX.frameJSON([frame.x, frame.y, frame.width, frame.height]) }
        var actions = AX.actionNames(element)
        if Accessibility.pressIsObvious.contains(role) { actions.removeAll { $0 == "AXPress" } }
        if !actions.isEmpty { fields["actions"] = .array(actions.map { .string($0) }) }
        if (values["AXFocused"] as? Bool) == true { fields["focused"] = .bool(true) }
        if (values["AXSelected"] as? Bool) == true { fields["selected"] = .bool(true) }
        if (values["AXEnabled"] as? Bool) == false { fields["disabled"] = .bool(true) }
        // One more message only for elements that have a value at all.
        if values["AXValue"] != nil && AX.isSettable(element, "AXValue") { fields["settable"] = .bool(true) }
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
