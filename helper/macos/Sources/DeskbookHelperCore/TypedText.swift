// `type`'s text cut into what the helper sends: runs of characters (each one key down/up
// pair carrying a Unicode string) and the keys that text fields read as keys, not
// characters. Pure, so the rule is tested with the core.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum TypedText {
    public enum Piece: Equatable {
        case text(String)
        case returnKey
        case tabKey
    }

    /// keyboardSetUnicodeString is reported to keep no more UTF-16 units than this per event.
    public static let maxUnitsPerEvent = 20

    /// "\n" and "\r\n" become Return, "\t" Tab; a run never splits a character (grapheme
    /// cluster) and holds at most maxUnitsPerEvent units unless one character alone is longer.
    public static func pieces(_ text: String) -> [Piece] {
        var pieces: [Piece] = []
        var run = ""
        func flush() {
            if !run.isEmpty { pieces.append(.text(run)) }
            run = ""
        }
        for character in text {
            if character == "\n" || character == "\r\n" || character == "\t" {
                flush()
                pieces.append(character == "\t" ? .tabKey : .returnKey)
                continue
            }
            if run.utf16.count + String(character).utf16.count > maxUnitsPerEvent { flush() }
            run.append(character)
        }
        flush()
        return pieces
    }
}
