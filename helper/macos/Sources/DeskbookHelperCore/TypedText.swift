// `type`'s text cut into what the helper sends: one character (grapheme cluster) per key
// down/up pair carrying its Unicode string, a short gap after each, and the keys that text
// fields read as keys, not characters. One character per event because apps that act on each
// keystroke (autocomplete, input methods, search-as-you-type) see a 20-character event as one
// keystroke, or drop part of it; trycua's cua-driver (KeyboardInput.swift, typeCharacters)
// types the same way, with a per-character delay so such handlers keep up. Pure, so the rule
// is tested with the core.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum TypedText {
    public enum Piece: Equatable {
        case text(String)
        case returnKey
        case tabKey
    }

    /// The pause after each piece, in microseconds: room for per-keystroke handlers, and about
    /// 100 characters a second, the speed the protocol tells clients to expect from `type` on
    /// every helper (cua-driver's default is 30 ms, for slow autocomplete fields).
    public static let gapMicroseconds: UInt32 = 10_000

    /// "\n" and "\r\n" become Return, "\t" Tab, every other character its own piece, never
    /// split (an emoji or a letter with its accents is one character however many units).
    public static func pieces(_ text: String) -> [Piece] {
        return text.map { character in
            switch character {
            case "\n", "\r\n": return .returnKey
            case "\t": return .tabKey
            default: return .text(String(character))
            }
        }
    }
}
