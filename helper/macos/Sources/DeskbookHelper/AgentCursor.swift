// The agent cursor: a small drawn arrow showing where the agent acts, a decoration only (no
// action ever fails because of it). A borderless, transparent, click-through panel
// (`ignoresMouseEvents`) at the normal window level, ordered just above the target window
// (`order(.above, relativeTo:)`), so windows in front of the target still cover it. It
// glides to each point, and hides after a few seconds without one. Its sharing type is left
// at the default, so screen recordings include it.
//
// State (the client's `enabled`, the user's Hide Agent Cursor) is behind a lock and may be
// read from any thread; every AppKit call runs on the main thread (DispatchQueue.main.async),
// and nothing here waits for the main thread, so the input queue never blocks on it.
// On/off: the client's `cursor {enabled}` if it sent one, else config.json's `cursor`, and
// never while the user has hidden it from the menu bar.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import DeskbookHelperCore
import Foundation

final class AgentCursor {
    static let shared = AgentCursor()

    private static let idleSeconds = 3.0
    private static let side: CGFloat = 24
    private static let glideSeconds = 0.2

    private let lock = NSLock()
    private var enabledByClient: Bool?
    private var hiddenByUser = false

    // Main thread only.
    private var panel: NSPanel?
    private var idleHide: DispatchWorkItem?

    private init() {}

    /// True while the user has hidden the cursor from the menu bar.
    var isHiddenByUser: Bool {
        lock.lock()
        defer { lock.unlock() }
        return hiddenByUser
    }

    /// The menu bar's Hide Agent Cursor; hiding takes effect at once.
    func setHiddenByUser(_ hidden: Bool) {
        lock.lock()
        hiddenByUser = hidden
        lock.unlock()
        if hidden { hide() }
    }

    /// `cursor`'s `enabled`: overrides config.json's `cursor` for the helper's life.
    func setEnabled(_ enabled: Bool) {
        lock.lock()
        enabledByClient = enabled
        lock.unlock()
        if !enabled { hide() }
    }

    /// Whether the cursor is drawn, given config.json's `cursor`.
    func isEnabled(configDefault: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return (enabledByClient ?? configDefault) && !hiddenByUser
    }

    /// Moves the cursor's tip to a screen point (top-left origin), ordered just above
    /// `windowId` when given. Returns at once.
    func show(at point: CGPoint, above windowId: UInt32?, configDefault: Bool) {
        guard isEnabled(configDefault: configDefault) else { return }
        DispatchQueue.main.async { self.move(to: point, above: windowId) }
    }

    func hide() {
        DispatchQueue.main.async {
            self.idleHide?.cancel()
            self.panel?.orderOut(nil)
        }
    }

    // MARK: Main thread

    private func move(to point: CGPoint, above windowId: UInt32?) {
        let panel = self.panel ?? makePanel()
        self.panel = panel
        let frame = self.frame(tip: point)
        if panel.isVisible {
            NSAnimationContext.runAnimationGroup { context in
                context.duration = AgentCursor.glideSeconds
                panel.animator().setFrame(frame, display: true)
            }
        } else {
            panel.setFrame(frame, display: true)
        }
        if let windowId = windowId {
            panel.order(.above, relativeTo: Int(windowId))
        } else {
            panel.orderFrontRegardless()
        }
        scheduleIdleHide()
    }

    /// The panel's AppKit frame for a tip at the top-left-origin point.
    private func frame(tip point: CGPoint) -> NSRect {
        let primaryHeight = Double(NSScreen.screens.first?.frame.height ?? 0)
        let side = Double(AgentCursor.side)
        let origin = ScreenPoints.appKitOrigin(x: Double(point.x) - 1, y: Double(point.y) - 1,
                                               height: side, primaryHeight: primaryHeight)
        return NSRect(x: origin.x, y: origin.y, width: side, height: side)
    }

    private func scheduleIdleHide() {
        idleHide?.cancel()
        let work = DispatchWorkItem { [weak self] in self?.panel?.orderOut(nil) }
        idleHide = work
        DispatchQueue.main.asyncAfter(deadline: .now() + AgentCursor.idleSeconds, execute: work)
    }

    private func makePanel() -> NSPanel {
        let rect = NSRect(x: 0, y: 0, width: AgentCursor.side, height: AgentCursor.side)
        let panel = NSPanel(contentRect: rect, styleMask: [.borderless, .nonactivatingPanel], backing: .buffered, defer: false)
        panel.isOpaque = false
        panel.backgroundColor = .clear
        panel.hasShadow = false
        panel.ignoresMouseEvents = true
        panel.level = .normal
        // A panel hides when its app is inactive by default; this app never is active.
        panel.hidesOnDeactivate = false
        panel.isReleasedWhenClosed = false
        panel.collectionBehavior = [.ignoresCycle, .fullScreenAuxiliary]
        panel.contentView = ArrowView(frame: rect)
        return panel
    }
}

/// The arrow: the usual pointer shape, filled in the accent blue with a white outline.
private final class ArrowView: NSView {
    override var isFlipped: Bool { return true }

    override func draw(_ dirtyRect: NSRect) {
        let outline: [(CGFloat, CGFloat)] = [(1, 1), (1, 19), (6, 14.5), (9.5, 22), (12.5, 20.5), (9, 13.5), (15.5, 13.5)]
        let path = NSBezierPath()
        path.move(to: NSPoint(x: outline[0].0, y: outline[0].1))
        for point in outline.dropFirst() { path.line(to: NSPoint(x: point.0, y: point.1)) }
        path.close()
        NSColor.systemBlue.setFill()
        path.fill()
        NSColor.white.setStroke()
        path.lineWidth = 1.5
        path.stroke()
    }
}
