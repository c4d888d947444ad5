// Keys held: `keyDown` / `keyUp` press or release one key and leave it so (a modifier held
// across clicks, an arrow key held in a game), and `keys`' `holdMs` keeps each key down that
// long before it comes up. Only keys with a key position can be held: text typed as Unicode
// strings has no key to keep down.
//
// NEVER COMPILED OR RUN (see README.md).
import CoreGraphics
import DeskbookHelperCore
import Foundation

extension Input {
    /// Virtual key codes of the modifier keys: a chord's modifiers go down without a wait.
    private static let modifierCodes: Set<Int64> = [0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F]

    /// A Post that waits `ms` after each key down that is not a modifier's, so the key is held.
    static func holding(ms: Int) -> Post {
        guard ms > 0 else { return Input.postToHID }
        return { event in
            Input.postToHID(event)
            let code = event.getIntegerValueField(.keyboardEventKeycode)
            if event.type == .keyDown && !modifierCodes.contains(code) {
                Thread.sleep(forTimeInterval: Double(ms) / 1000)
            }
        }
    }

    /// Presses (`down`) or releases one key by name, as a chord's key is named.
    static func hold(_ key: String, down: Bool) throws {
        // stroke gives a single character's key position only for a chord with a modifier other
        // than shift; the modifier itself is not pressed here.
        let chord = Chord(key: key, mods: key.count == 1 ? ["ctrl"] : [])
        guard case let .key(code, _) = try stroke(chord) else {
            throw HelperError(.badKey, "\(JSONValue.stringText(key)) has no key position to hold")
        }
        // Without Input's private event source: a held Escape counts as the user's and stops the cell.
        guard let event = CGEvent(keyboardEventSource: nil, virtualKey: code, keyDown: down) else {
            throw HelperError(.failed, "could not create a key event")
        }
        Input.postToHID(event)
    }
}
