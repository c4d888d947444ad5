// Foreground input with CGEvent: keys, type, click, scroll, drag, move. Every event comes from
// one CGEventSource whose userData is Input.ownMark, so the Escape tap (EscapeTap.swift) can
// tell the helper's own events from the user's (CGEventField.eventSourceUserData). Events are
// posted at the HID tap (CGEvent.post(tap: .cghidEventTap)), which needs Accessibility.
//
// Foreground route: the caller has checked that `pid` is the frontmost app, so input gated
// for one app never lands in another. The background route (BackgroundInput.swift) builds its
// key events here too, from the same marked source and key table, and only posts them
// elsewhere (`keys` and `typeText` take the poster); its mouse events are AppKit-built
// (`appKitMouseEvent`), its scroll events come from `scrollEvent`.
//
// Key names are xdotool keysyms (docs/backend-protocol.md). Named keys map to macOS virtual
// key codes (Carbon's kVK_* values, which are physical ANSI positions). A single character
// pressed without ctrl/alt/super/fn is typed as Unicode (layout-independent); with those
// modifiers it needs a key position, which the US-ANSI table gives for letters, digits and
// ASCII punctuation; anything else is bad_key.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices // AXIsProcessTrusted, without relying on AppKit re-exporting it
import CoreGraphics
import DeskbookHelperCore
import Foundation

struct Chord {
    let key: String
    let mods: [String]
}

enum Input {
    /// "deskbook" in ASCII: the eventSourceUserData of every event this helper posts.
    static let ownMark: Int64 = 0x6465_736B_626F_6F6B

    static let foregroundResult: JSONValue = .object(["route": .string("foreground"), "focusRestored": .bool(false)])

    /// Where an event goes: the HID tap here, the target process on the background route.
    typealias Post = (CGEvent) -> Void

    static let postToHID: Post = { event in event.post(tap: .cghidEventTap) }

    private static let source: CGEventSource? = {
        let source = CGEventSource(stateID: .hidSystemState)
        source?.userData = ownMark
        // Never hold back the user's own keys and mouse after a posted event (Escape above all;
        // Apple gives 0.25 s as the old default suppression).
        source?.localEventsSuppressionInterval = 0
        return source
    }()

    // MARK: Key tables (Carbon HIToolbox Events.h kVK_* values)

    private static let named: [String: CGKeyCode] = [
        "Return": 0x24, "Tab": 0x30, "space": 0x31, "BackSpace": 0x33, "Escape": 0x35, "Delete": 0x75,
        "Left": 0x7B, "Right": 0x7C, "Down": 0x7D, "Up": 0x7E,
        "Home": 0x73, "End": 0x77, "Page_Up": 0x74, "Prior": 0x74, "Page_Down": 0x79, "Next": 0x79,
        "Help": 0x72, "Insert": 0x72,
        "F1": 0x7A, "F2": 0x78, "F3": 0x63, "F4": 0x76, "F5": 0x60, "F6": 0x61, "F7": 0x62, "F8": 0x64,
        "F9": 0x65, "F10": 0x6D, "F11": 0x67, "F12": 0x6F, "F13": 0x69, "F14": 0x6B, "F15": 0x71,
        "F16": 0x6A, "F17": 0x40, "F18": 0x4F, "F19": 0x50, "F20": 0x5A,
        "KP_Enter": 0x4C, "KP_0": 0x52, "KP_1": 0x53, "KP_2": 0x54, "KP_3": 0x55, "KP_4": 0x56,
        "KP_5": 0x57, "KP_6": 0x58, "KP_7": 0x59, "KP_8": 0x5B, "KP_9": 0x5C, "KP_Decimal": 0x41,
        "KP_Multiply": 0x43, "KP_Add": 0x45, "KP_Subtract": 0x4E, "KP_Divide": 0x4B, "KP_Equal": 0x51,
        "Control_L": 0x3B, "Control_R": 0x3E, "Shift_L": 0x38, "Shift_R": 0x3C, "Alt_L": 0x3A, "Alt_R": 0x3D,
        "Super_L": 0x37, "Super_R": 0x36, "Meta_L": 0x37, "Caps_Lock": 0x39,
        // keysym names of ASCII punctuation, resolved through `ansi` below
    ]

    /// Names people type that keysymdef.h spells differently (matched case-insensitively).
    private static let aliases: [String: String] = [
        "enter": "Return", "esc": "Escape", "del": "Delete", "ins": "Insert", "pageup": "Page_Up",
        "pagedown": "Page_Down", "pgup": "Page_Up", "pgdn": "Page_Down", "backspace": "BackSpace",
    ]

    /// Keysym names of ASCII punctuation → the character.
    private static let punctuation: [String: Character] = [
        "minus": "-", "equal": "=", "bracketleft": "[", "bracketright": "]", "backslash": "\\",
        "semicolon": ";", "apostrophe": "'", "comma": ",", "period": ".", "slash": "/", "grave": "`",
        "plus": "+", "exclam": "!", "at": "@", "numbersign": "#", "dollar": "$", "percent": "%",
        "asciicircum": "^", "ampersand": "&", "asterisk": "*", "parenleft": "(", "parenright": ")",
        "underscore": "_", "braceleft": "{", "braceright": "}", "bar": "|", "colon": ":",
        "quotedbl": "\"", "less": "<", "greater": ">", "question": "?", "asciitilde": "~",
    ]

    /// US-ANSI key positions: character → (key code, needs shift).
    private static let ansi: [Character: (CGKeyCode, Bool)] = {
        var table: [Character: (CGKeyCode, Bool)] = [:]
        let letters: [(Character, CGKeyCode)] = [
            ("a", 0x00), ("s", 0x01), ("d", 0x02), ("f", 0x03), ("h", 0x04), ("g", 0x05), ("z", 0x06),
            ("x", 0x07), ("c", 0x08), ("v", 0x09), ("b", 0x0B), ("q", 0x0C), ("w", 0x0D), ("e", 0x0E),
            ("r", 0x0F), ("y", 0x10), ("t", 0x11), ("o", 0x1F), ("u", 0x20), ("i", 0x22), ("p", 0x23),
            ("l", 0x25), ("j", 0x26), ("k", 0x28), ("n", 0x2D), ("m", 0x2E),
        ]
        for (letter, code) in letters {
            table[letter] = (code, false)
            table[Character(letter.uppercased())] = (code, true)
        }
        let plain: [(Character, CGKeyCode)] = [
            ("1", 0x12), ("2", 0x13), ("3", 0x14), ("4", 0x15), ("6", 0x16), ("5", 0x17), ("=", 0x18),
            ("9", 0x19), ("7", 0x1A), ("-", 0x1B), ("8", 0x1C), ("0", 0x1D), ("]", 0x1E), ("[", 0x21),
            ("'", 0x27), (";", 0x29), ("\\", 0x2A), (",", 0x2B), ("/", 0x2C), (".", 0x2F), ("`", 0x32),
            (" ", 0x31),
        ]
        for (character, code) in plain { table[character] = (code, false) }
        let shifted: [(Character, Character)] = [
            ("!", "1"), ("@", "2"), ("#", "3"), ("$", "4"), ("%", "5"), ("^", "6"), ("&", "7"), ("*", "8"),
            ("(", "9"), (")", "0"), ("_", "-"), ("+", "="), ("{", "["), ("}", "]"), ("|", "\\"), (":", ";"),
            ("\"", "'"), ("<", ","), (">", "."), ("?", "/"), ("~", "`"),
        ]
        for (character, base) in shifted {
            if let code = table[base]?.0 { table[character] = (code, true) }
        }
        return table
    }()

    private static let modifierFlags: [String: CGEventFlags] = [
        "ctrl": .maskControl, "shift": .maskShift, "alt": .maskAlternate, "super": .maskCommand, "fn": .maskSecondaryFn,
    ]

    /// The modifier keys pressed around a chord. `fn` is not among them: it goes as the
    /// event flag only (.maskSecondaryFn), since a posted kVK_Function key is a real Fn/Globe
    /// press, which macOS may answer with the emoji picker, dictation or an input-source switch.
    private static let modifierKeys: [String: CGKeyCode] = [
        "ctrl": 0x3B, "shift": 0x38, "alt": 0x3A, "super": 0x37,
    ]

    /// How one chord is sent: a key code (with shift implied or not), or Unicode text.
    enum Stroke {
        case key(CGKeyCode, shift: Bool)
        case text(String)
    }

    /// The stroke for a chord, or bad_key. Called for every chord before anything is sent.
    static func stroke(_ chord: Chord) throws -> Stroke {
        let name = chord.key
        if name.count == 1, let character = name.first {
            let needsPosition = chord.mods.contains { $0 != "shift" }
            // shift+a means "A", as on Linux; apps that read the event's text would see "a".
            if !needsPosition { return .text(chord.mods.isEmpty || !character.isLetter ? name : name.uppercased()) }
            if let position = ansi[character] { return .key(position.0, shift: position.1) }
            throw HelperError(.badKey, "\(JSONValue.stringText(name)) has no key position to press with \(chord.mods.joined(separator: "+")) (US-ANSI layout)")
        }
        if let code = named[name] { return .key(code, shift: false) }
        if let character = punctuation[name] {
            return try stroke(Chord(key: String(character), mods: chord.mods))
        }
        let lower = name.lowercased()
        if let alias = aliases[lower], let code = named[alias] { return .key(code, shift: false) }
        if let entry = named.first(where: { $0.key.lowercased() == lower }) { return .key(entry.value, shift: false) }
        throw HelperError(.badKey, "unknown key \(JSONValue.stringText(name)); use an xdotool keysym name (Return, Tab, Page_Down, F5, …) or a single character")
    }

    // MARK: Foreground check

    /// `failed` unless `pid` is the frontmost app.
    static func requireForeground(pid: pid_t) throws {
        let front = NSWorkspace.shared.frontmostApplication?.processIdentifier
        guard front == pid else {
            let who = front.map { "the frontmost app is pid \($0)" } ?? "no app is frontmost"
            throw HelperError(.failed, "pid \(pid) is not the active app (\(who)); activate it first")
        }
        if !AXIsProcessTrusted() {
            throw HelperError(.permission, "Accessibility is not granted to the Deskbook helper, so it cannot post input")
        }
    }

    // MARK: Keyboard

    static func keys(_ chords: [Chord], post: Post = Input.postToHID) throws {
        let strokes = try chords.map { try stroke($0) }
        for (chord, stroke) in zip(chords, strokes) {
            let flags = self.flags(chord.mods)
            let held = chord.mods.compactMap { modifierKeys[$0] }
            for code in held { try postKey(code, down: true, flags: flags, post: post) }
            switch stroke {
            case .key(let code, let shift):
                var keyFlags = flags
                if shift { keyFlags.insert(.maskShift) }
                try postKey(code, down: true, flags: keyFlags, post: post)
                try postKey(code, down: false, flags: keyFlags, post: post)
            case .text(let text):
                try postText(text, flags: flags, post: post)
            }
            for code in held.reversed() { try postKey(code, down: false, flags: [], post: post) }
        }
    }

    /// The event flags of modifier names (ctrl, shift, alt, super, fn).
    static func flags(_ mods: [String]) -> CGEventFlags {
        var flags = CGEventFlags()
        for mod in mods { if let flag = modifierFlags[mod] { flags.insert(flag) } }
        return flags
    }

    /// `type`: text as characters whatever the layout, one character per key down/up pair
    /// with TypedText's short gap after each, so per-keystroke handlers keep up.
    static func typeText(_ text: String, post: Post = Input.postToHID) throws {
        for piece in TypedText.pieces(text) {
            switch piece {
            case .text(let character):
                // No flags: an app that reads them would apply a stale Shift to the next character.
                try postText(character, flags: [], post: post)
            case .returnKey, .tabKey:
                let code: CGKeyCode = piece == .tabKey ? 0x30 : 0x24
                try postKey(code, down: true, flags: [], post: post)
                try postKey(code, down: false, flags: [], post: post)
            }
            usleep(TypedText.gapMicroseconds)
        }
    }

    private static func postKey(_ code: CGKeyCode, down: Bool, flags: CGEventFlags, post: Post) throws {
        guard let event = CGEvent(keyboardEventSource: source, virtualKey: code, keyDown: down) else {
            throw HelperError(.failed, "could not create a key event")
        }
        event.flags = flags
        post(event)
    }

    /// A key down and up carrying `text` as their Unicode string (virtual key 0).
    private static func postText(_ text: String, flags: CGEventFlags, post: Post) throws {
        let units = Array(text.utf16)
        for down in [true, false] {
            guard let event = CGEvent(keyboardEventSource: source, virtualKey: 0, keyDown: down) else {
                throw HelperError(.failed, "could not create a key event")
            }
            event.flags = flags
            units.withUnsafeBufferPointer { buffer in
                event.keyboardSetUnicodeString(stringLength: buffer.count, unicodeString: buffer.baseAddress)
            }
            post(event)
        }
    }

    // MARK: Mouse

    static func buttonTypes(_ button: String) -> (CGMouseButton, CGEventType, CGEventType, CGEventType) {
        switch button {
        case "right": return (.right, .rightMouseDown, .rightMouseUp, .rightMouseDragged)
        case "middle": return (.center, .otherMouseDown, .otherMouseUp, .otherMouseDragged)
        default: return (.left, .leftMouseDown, .leftMouseUp, .leftMouseDragged)
        }
    }

    /// A mouse event from the marked source; the click state is set whenever given, since
    /// AppKit ignores a mouse-down that carries none.
    static func mouseEvent(_ type: CGEventType, at point: CGPoint, button: CGMouseButton, clickState: Int64? = nil, flags: CGEventFlags = []) throws -> CGEvent {
        guard let event = CGEvent(mouseEventSource: source, mouseType: type, mouseCursorPosition: point, mouseButton: button) else {
            throw HelperError(.failed, "could not create a mouse event")
        }
        if let clickState = clickState { event.setIntegerValueField(.mouseEventClickState, value: clickState) }
        event.flags = flags
        return event
    }

    /// A mouse event for the background route, built by AppKit and bridged to a CGEvent
    /// (NSEvent.mouseEvent(with:location:modifierFlags:timestamp:windowNumber:context:
    /// eventNumber:clickCount:pressure:), then `.cgEvent`), as trycua's cua-driver builds them
    /// (MouseInput.swift): the window number makes the receiving AppKit app route the event to
    /// that window although it is not key (with 0 it hit-tests and skips non-key windows), and
    /// Chromium's renderer drops mouse events built as raw CGEvents. The bridged event then
    /// gets the screen location, the button number, cua-driver's subtype 3, and the click
    /// state, set explicitly. The marked source is not used here (AppKit makes the event); the
    /// Escape tap only ever looks at key events.
    static func appKitMouseEvent(_ type: CGEventType, at point: CGPoint, windowNumber: UInt32, button: CGMouseButton,
                                 clickState: Int64, flags: CGEventFlags = []) throws -> CGEvent {
        guard let kind = NSEvent.EventType(rawValue: UInt(type.rawValue)) else {
            throw HelperError(.failed, "no AppKit event type for CGEvent type \(type.rawValue)")
        }
        // AppKit's location is bottom-left based on the primary display (the one with the menu bar).
        let primaryHeight = CGDisplayBounds(CGMainDisplayID()).height
        let cocoa = NSPoint(x: point.x, y: primaryHeight - point.y)
        guard let built = NSEvent.mouseEvent(
            with: kind, location: cocoa, modifierFlags: NSEvent.ModifierFlags(rawValue: UInt(flags.rawValue)),
            timestamp: ProcessInfo.processInfo.systemUptime, windowNumber: Int(windowNumber), context: nil,
            eventNumber: 0, clickCount: Int(clickState), pressure: type == .mouseMoved ? 0 : 1),
            let event = built.cgEvent else {
            throw HelperError(.failed, "could not create a mouse event")
        }
        event.location = point
        event.setIntegerValueField(.mouseEventButtonNumber, value: Int64(button.rawValue))
        event.setIntegerValueField(.mouseEventSubtype, value: 3)
        event.setIntegerValueField(.mouseEventClickState, value: clickState)
        event.flags = flags
        return event
    }

    private static func postMouse(_ type: CGEventType, at point: CGPoint, button: CGMouseButton, clickState: Int64? = nil, flags: CGEventFlags = []) throws {
        try mouseEvent(type, at: point, button: button, clickState: clickState, flags: flags).post(tap: .cghidEventTap)
    }

    static func move(x: Double, y: Double) throws {
        try postMouse(.mouseMoved, at: CGPoint(x: x, y: y), button: .left)
    }

    /// `click`: count 1 to 3 as one sequence (click states 1, 2, 3), mods held throughout.
    static func click(x: Double, y: Double, button: String, count: Int, mods: [String]) throws {
        let point = CGPoint(x: x, y: y)
        let (cgButton, downType, upType, _) = buttonTypes(button)
        let flags = self.flags(mods)
        try postMouse(.mouseMoved, at: point, button: cgButton, flags: flags)
        usleep(10_000)
        for state in 1...max(1, count) {
            try postMouse(downType, at: point, button: cgButton, clickState: Int64(state), flags: flags)
            try postMouse(upType, at: point, button: cgButton, clickState: Int64(state), flags: flags)
        }
    }

    /// `scroll`: wheel lines at the point; positive dy toward the end (down), dx to the right.
    static func scroll(x: Double, y: Double, dy: Double, dx: Double) throws {
        let point = CGPoint(x: x, y: y)
        try postMouse(.mouseMoved, at: point, button: .left)
        try scrollEvent(at: point, dy: dy, dx: dx).post(tap: .cghidEventTap)
    }

    /// A line-unit wheel event at the point from the marked source.
    static func scrollEvent(at point: CGPoint, dy: Double, dx: Double) throws -> CGEvent {
        guard let event = CGEvent(scrollWheelEvent2Source: source, units: .line, wheelCount: 2,
                                  wheel1: lines(-dy), wheel2: lines(-dx), wheel3: 0) else {
            throw HelperError(.failed, "could not create a scroll event")
        }
        event.location = point
        return event
    }

    /// Whole wheel lines, clamped so that no JSON number can trap the conversion.
    private static func lines(_ value: Double) -> Int32 {
        return Int32(max(-10_000, min(10_000, value.rounded())))
    }

    /// `drag`: down at the first point, dragged through the rest, up at the last.
    static func drag(_ path: [CGPoint], button: String) throws {
        guard let first = path.first, let last = path.last else { return }
        let (cgButton, downType, upType, draggedType) = buttonTypes(button)
        try postMouse(.mouseMoved, at: first, button: cgButton)
        try postMouse(downType, at: first, button: cgButton, clickState: 1)
        for point in path.dropFirst() {
            usleep(16_000)
            try postMouse(draggedType, at: point, button: cgButton)
        }
        usleep(16_000)
        try postMouse(upType, at: last, button: cgButton, clickState: 1)
    }
}
