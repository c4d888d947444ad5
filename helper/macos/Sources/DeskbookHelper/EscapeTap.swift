// The Escape watcher: a listen-only CGEvent tap for key-down events at the session tap point
// (only root may tap at the HID point), on the main run loop. An Escape (virtual key 0x35)
// whose eventSourceUserData is not Input.ownMark is the user's, and calls `onEscape`, which
// main.swift points at SocketServer.broadcast(.escape). A listen-only tap needs Input
// Monitoring: without it CGEvent.tapCreate returns nil and `isRunning` stays false, which
// `permissions` reports as escapeWatcher: false. The system disables a tap that is too slow
// or on user input; the callback re-enables it.
//
// NEVER COMPILED OR RUN (see README.md).
import CoreGraphics
import Foundation

final class EscapeTap {
    /// Set once in main.swift before start(); called on the main thread.
    var onEscape: (() -> Void)?

    private let lock = NSLock()
    private var port: CFMachPort?

    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let port = port else { return false }
        return CGEvent.tapIsEnabled(tap: port)
    }

    /// Installs the tap if it is not there yet (re-enables it if the system turned it off);
    /// false when the system refused it.
    @discardableResult
    func start() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let existing = port {
            // A disable whose event never reached the callback would otherwise stay for good.
            if !CGEvent.tapIsEnabled(tap: existing) { CGEvent.tapEnable(tap: existing, enable: true) }
            return CGEvent.tapIsEnabled(tap: existing)
        }
        let mask = CGEventMask(1) << CGEventMask(CGEventType.keyDown.rawValue)
        let callback: CGEventTapCallBack = { _, type, event, refcon in
            if let refcon = refcon {
                let tap = Unmanaged<EscapeTap>.fromOpaque(refcon).takeUnretainedValue()
                tap.handle(type, event)
            }
            return Unmanaged.passUnretained(event)
        }
        guard let created = CGEvent.tapCreate(tap: .cgSessionEventTap, place: .headInsertEventTap, options: .listenOnly,
                                              eventsOfInterest: mask, callback: callback,
                                              userInfo: Unmanaged.passUnretained(self).toOpaque()) else {
            return false
        }
        guard let source = CFMachPortCreateRunLoopSource(kCFAllocatorDefault, created, 0) else {
            CFMachPortInvalidate(created)
            return false
        }
        CFRunLoopAddSource(CFRunLoopGetMain(), source, .commonModes)
        // `permissions` may install it from a call queue: wake the main loop to pick it up.
        CFRunLoopWakeUp(CFRunLoopGetMain())
        CGEvent.tapEnable(tap: created, enable: true)
        port = created
        return true
    }

    private func handle(_ type: CGEventType, _ event: CGEvent) {
        if type == .tapDisabledByTimeout || type == .tapDisabledByUserInput {
            lock.lock()
            let current = port
            lock.unlock()
            if let current = current { CGEvent.tapEnable(tap: current, enable: true) }
            return
        }
        guard type == .keyDown, event.getIntegerValueField(.keyboardEventKeycode) == 0x35 else { return }
        if event.getIntegerValueField(.eventSourceUserData) == Input.ownMark { return }
        onEscape?()
    }
}
