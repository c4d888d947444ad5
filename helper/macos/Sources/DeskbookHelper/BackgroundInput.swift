// The background route (`mode: "background"` with `windowId`): input reaches one window of a
// background app while the user's frontmost app keeps the front and the real pointer stays
// where it is. Events are built by Input (same marked source, same key table) and posted to
// the process instead of the HID tap.
//
// - keys, type: the defocus record to the front process, the focus record and then the
//   make-key pair (EventRecords) make the window
//   key inside its app without activating it; Accessibility must then report it as the app's
//   focused window (else background_unconfirmed); the key events go to the pid through
//   SLEventPostToPid. (The public CGEventPostToPid alone is not enough: a background app has
//   no key window, so the keys are dropped.)
// - click, scroll, drag: the defocus and focus records only, then a mouseMoved and the button
//   events, built by AppKit for the target window (Input.appKitMouseEvent), each stamped with
//   the target (see `stamp`) and, unless `windowLocation: "screen"`, a window-local location.
//   AppKit apps get them through the public CGEventPostToPid; Chromium/Electron apps
//   (ChromiumApps) through SLEventPostToPid, a click there preceded by an off-screen primer
//   click (trycua cua-driver, MouseInput.swift: the renderer's user-activation gate opens on
//   it, and no page element sits at (-1, -1)). Scroll events take the same one route. Button
//   events always carry an explicit click state.
//
// Timings (15 ms after the move, 100 ms after the primer, 80 ms between the pairs of a
// double click, 50 ms after the focus record) are cua-driver's tuned values.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import CoreGraphics
import DeskbookHelperCore
import Foundation

/// The input options of keys/type/click/scroll/drag.
struct InputOptions {
    /// The target window of `mode: "background"`; nil means the foreground route.
    let windowId: UInt32?
    /// `windowLocation: "screen"`: events keep their screen location only.
    let screenLocation: Bool
}

final class BackgroundInput {
    /// One background call's target, checked before anything is posted.
    struct Target {
        let pid: pid_t
        let windowId: UInt32
        let bounds: CGRect
        let psn: [UInt32]
        let chromium: Bool
        let screenLocation: Bool

        var route: String { return chromium ? "background-skylight" : "background" }
    }

    /// Event fields stamped on every background mouse event (numbers, not the public enum,
    /// because they go through SLEventSetIntegerValueField):
    /// 40 kCGEventTargetUnixProcessID (public CGEventTypes.h), 91
    /// kCGMouseEventWindowUnderMousePointer and 92 …ThatCanHandleThisEvent (public, 10.7+),
    /// 51 a window id field with no public name, 58 a click-group id shared by the events of
    /// one gesture (51 and 58: cua-driver MouseInput.swift's doc comment and projects derived
    /// from it; that file's code stamps only 40, 91 and 92, and SkyLightEventPost.swift guesses
    /// 51/91/92 may hold a connection id instead: the first suspects if clicks are dropped).
    private enum Field {
        static let targetPid: UInt32 = 40
        static let windowIds: [UInt32] = [51, 91, 92]
        static let clickGroup: UInt32 = 58
    }

    private static let primerPoint = CGPoint(x: -1, y: -1)

    private let windows: Windows

    init(windows: Windows) {
        self.windows = windows
    }

    // MARK: Target

    /// no_window unless `pid` owns `windowId`; background_unavailable when no process serial
    /// number can be had.
    func target(pid: pid_t, options: InputOptions) throws -> Target {
        let windowId = options.windowId ?? 0
        guard let server = Windows.serverWindow(pid: pid, windowId: windowId) else {
            throw HelperError(.noWindow, "window \(windowId) is not a window of pid \(pid)")
        }
        guard let psn = SkyLight.processSerialNumber(pid: pid, windowId: windowId) else {
            throw BackgroundInput.unavailable("a process serial number (GetProcessForPID or SLSGetConnectionPSN)")
        }
        return Target(pid: pid, windowId: windowId, bounds: server.bounds, psn: psn,
                      chromium: BackgroundInput.isChromium(pid: pid), screenLocation: options.screenLocation)
    }

    static func isChromium(pid: pid_t) -> Bool {
        guard let app = NSRunningApplication(processIdentifier: pid) else { return false }
        var frameworks: [String] = []
        if let bundle = app.bundleURL {
            let folder = bundle.appendingPathComponent("Contents/Frameworks").path
            frameworks = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        }
        return ChromiumApps.isChromium(bundleId: app.bundleIdentifier, frameworks: frameworks)
    }

    static func unavailable(_ what: String) -> HelperError {
        return HelperError(.backgroundUnavailable, "\(what) is missing on this macOS, so there is no background input; send it in the foreground")
    }

    private func require<T>(_ function: T?, _ name: String) throws -> T {
        guard let function = function else { throw BackgroundInput.unavailable(name) }
        return function
    }

    // MARK: Making a window key

    private func post(_ record: [UInt8], _ target: Target) throws {
        _ = try require(SkyLight.postEventRecordTo, "SLPSPostEventRecordTo")
        if !SkyLight.post(record: record, to: target.psn) {
            throw HelperError(.backgroundUnavailable, "the window server refused an event record for window \(target.windowId)")
        }
    }

    /// The defocus record to the front process (with its focused window's id), then, 10 ms
    /// later, the focus record to the target: yabai's `window_manager_focus_window_without_raise`
    /// and cua-driver's FocusWithoutRaise.swift. Without the first, the front app is never told
    /// it lost focus and both apps may believe they are active. Skipped when the target is the
    /// front process, or when `_SLPSGetFrontProcess` is missing (then the focus record alone).
    private func focusWithoutRaise(_ target: Target) throws {
        if let front = SkyLight.frontProcessSerialNumber(), front != target.psn {
            let frontPid = NSWorkspace.shared.frontmostApplication?.processIdentifier
            let losing = frontPid.flatMap { pid in Windows.serverWindows().first { $0.pid == pid && $0.onScreen }?.id } ?? target.windowId
            if SkyLight.post(record: EventRecords.defocus(windowId: losing), to: front) { usleep(10_000) }
        }
        try post(EventRecords.focus(windowId: target.windowId), target)
    }

    /// Polls Accessibility for up to half a second until the window is the app's focused one.
    private func confirmKey(_ target: Target) -> Bool {
        for _ in 0..<10 {
            if windows.isFocused(pid: target.pid, windowId: target.windowId) { return true }
            usleep(50_000)
        }
        return windows.isFocused(pid: target.pid, windowId: target.windowId)
    }

    /// The make-key pair, then the Accessibility check.
    private func makeKeyPair(_ target: Target) throws -> Bool {
        for record in EventRecords.makeKeyPair(windowId: target.windowId) { try post(record, target) }
        return confirmKey(target)
    }

    /// `makeKey`: the make-key pair alone (no focus record, which would make the app active
    /// inside AppKit), then the check.
    func makeKey(_ target: Target) throws -> Bool {
        return try makeKeyPair(target)
    }

    /// For keys and typing: the focus record, the make-key pair, the check.
    private func prepareKeys(_ target: Target) throws -> Post {
        let postToPid = try require(SkyLight.eventPostToPid, "SLEventPostToPid")
        try focusWithoutRaise(target)
        guard try makeKeyPair(target) else {
            throw HelperError(.backgroundUnconfirmed, "window \(target.windowId) did not become key in the background")
        }
        return { event in postToPid(target.pid, event) }
    }

    typealias Post = Input.Post

    // MARK: Keys

    func keys(_ target: Target, chords: [Chord]) throws -> String {
        let post = try prepareKeys(target)
        try Input.keys(chords, post: post)
        return target.route
    }

    func type(_ target: Target, text: String) throws -> String {
        // An empty string is a no-op (protocol), so it must not fail as background_unconfirmed.
        if text.isEmpty { return target.route }
        let post = try prepareKeys(target)
        try Input.typeText(text, post: post)
        return target.route
    }

    // MARK: Mouse

    /// What a mouse gesture needs, checked before anything is posted.
    private struct Mouse {
        let target: Target
        let setField: SkyLight.SetIntegerValueField
        let setWindowLocation: SkyLight.SetWindowLocation?
        let postToPid: SkyLight.EventPostToPid?
        /// One value for all events of the gesture. Kept below a second in nanoseconds, as
        /// cua-driver does (others report that a large value makes the window server drop them).
        let group = Int64(Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1) * 1_000_000_000)
    }

    private func mouse(_ target: Target, needsSkyLightPost: Bool) throws -> Mouse {
        let setField = try require(SkyLight.setIntegerValueField, "SLEventSetIntegerValueField")
        if !target.screenLocation && SkyLight.setWindowLocation == nil {
            throw BackgroundInput.unavailable("CGEventSetWindowLocation")
        }
        if needsSkyLightPost && SkyLight.eventPostToPid == nil { throw BackgroundInput.unavailable("SLEventPostToPid") }
        try focusWithoutRaise(target)
        usleep(50_000)
        return Mouse(target: target, setField: setField, setWindowLocation: SkyLight.setWindowLocation,
                     postToPid: SkyLight.eventPostToPid)
    }

    /// Marks the event as meant for the target process and window, with its window-local
    /// location (`local`, nil to leave the screen location alone).
    private func stamp(_ event: CGEvent, _ mouse: Mouse, local: CGPoint?) {
        mouse.setField(event, Field.targetPid, Int64(mouse.target.pid))
        for field in Field.windowIds { mouse.setField(event, field, Int64(mouse.target.windowId)) }
        mouse.setField(event, Field.clickGroup, mouse.group)
        if let local = local, let setWindowLocation = mouse.setWindowLocation { setWindowLocation(event, local) }
    }

    private func localPoint(_ point: CGPoint, _ mouse: Mouse) -> CGPoint? {
        if mouse.target.screenLocation { return nil }
        let bounds = mouse.target.bounds
        let local = ScreenPoints.windowLocal(x: Double(point.x), y: Double(point.y),
                                             windowX: Double(bounds.minX), windowY: Double(bounds.minY))
        return CGPoint(x: local.x, y: local.y)
    }

    /// Stamps and posts one event: SkyLight for Chromium apps, CGEventPostToPid otherwise.
    private func send(_ event: CGEvent, _ mouse: Mouse, at point: CGPoint, local: CGPoint? = nil) {
        stamp(event, mouse, local: local ?? localPoint(point, mouse))
        if mouse.target.chromium, let postToPid = mouse.postToPid {
            postToPid(mouse.target.pid, event)
        } else {
            event.postToPid(mouse.target.pid)
        }
    }

    func click(_ target: Target, at point: CGPoint, button: String, count: Int, mods: [String]) throws -> String {
        let mouse = try self.mouse(target, needsSkyLightPost: target.chromium)
        let (cgButton, downType, upType, _) = Input.buttonTypes(button)
        let flags = Input.flags(mods)
        try send(event(.mouseMoved, point, cgButton, 0, flags, target), mouse, at: point)
        usleep(15_000)
        if target.chromium { try primer(mouse) }
        for state in 1...max(1, count) {
            if state > 1 { usleep(80_000) }
            try send(event(downType, point, cgButton, Int64(state), flags, target), mouse, at: point)
            usleep(1_000)
            try send(event(upType, point, cgButton, Int64(state), flags, target), mouse, at: point)
        }
        return target.route
    }

    /// An AppKit-built mouse event addressed to the target window (Input.appKitMouseEvent).
    private func event(_ type: CGEventType, _ point: CGPoint, _ button: CGMouseButton, _ clickState: Int64,
                       _ flags: CGEventFlags, _ target: Target) throws -> CGEvent {
        return try Input.appKitMouseEvent(type, at: point, windowNumber: target.windowId, button: button,
                                          clickState: clickState, flags: flags)
    }

    /// A left click at (-1, -1), outside every window, stamped like the real one.
    private func primer(_ mouse: Mouse) throws {
        let point = BackgroundInput.primerPoint
        let local: CGPoint? = mouse.target.screenLocation ? nil : point
        try send(event(.leftMouseDown, point, .left, 1, [], mouse.target), mouse, at: point, local: local)
        usleep(1_000)
        try send(event(.leftMouseUp, point, .left, 1, [], mouse.target), mouse, at: point, local: local)
        usleep(100_000)
    }

    func scroll(_ target: Target, at point: CGPoint, dy: Double, dx: Double) throws -> String {
        let mouse = try self.mouse(target, needsSkyLightPost: target.chromium)
        try send(event(.mouseMoved, point, .left, 0, [], target), mouse, at: point)
        usleep(15_000)
        // One route, chosen by the app kind as for clicks (AppKit apps the public one, Chromium
        // renderers SkyLight's): an app that took both would scroll twice as far.
        try send(Input.scrollEvent(at: point, dy: dy, dx: dx), mouse, at: point)
        return target.route
    }

    func drag(_ target: Target, path: [CGPoint], button: String) throws -> String {
        guard let first = path.first, let last = path.last else { return target.route }
        let mouse = try self.mouse(target, needsSkyLightPost: target.chromium)
        let (cgButton, downType, upType, draggedType) = Input.buttonTypes(button)
        try send(event(.mouseMoved, first, cgButton, 0, [], target), mouse, at: first)
        usleep(15_000)
        try send(event(downType, first, cgButton, 1, [], target), mouse, at: first)
        for point in path.dropFirst() {
            usleep(16_000)
            try send(event(draggedType, point, cgButton, 1, [], target), mouse, at: point)
        }
        usleep(16_000)
        try send(event(upType, last, cgButton, 1, [], target), mouse, at: last)
        return target.route
    }
}
