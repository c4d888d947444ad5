// TypedText: how `type` cuts its text, one character per event. NEVER RUN (see README.md).
import XCTest
@testable import DeskbookHelperCore

final class TypedTextTests: XCTestCase {
    func testEveryCharacterIsItsOwnPiece() {
        XCTAssertEqual(TypedText.pieces("6*7="), [.text("6"), .text("*"), .text("7"), .text("=")])
    }

    func testNewlinesAndTabsAreKeys() {
        XCTAssertEqual(TypedText.pieces("a\nb\r\nc\td"), [.text("a"), .returnKey, .text("b"), .returnKey, .text("c"), .tabKey, .text("d")])
        XCTAssertEqual(TypedText.pieces("\n\n"), [.returnKey, .returnKey])
    }

    func testACharacterIsNeverSplit() {
        // An emoji of two UTF-16 units, a flag of four, and e with a combining accent: one piece each.
        XCTAssertEqual(TypedText.pieces("😀🇫🇷e\u{301}"), [.text("😀"), .text("🇫🇷"), .text("e\u{301}")])
    }

    func testLongTextStaysOneCharacterPerPiece() {
        let pieces = TypedText.pieces(String(repeating: "x", count: 45))
        XCTAssertEqual(pieces.count, 45)
        XCTAssertTrue(pieces.allSatisfy { $0 == .text("x") })
    }

    func testEmptyTextSendsNothing() {
        XCTAssertEqual(TypedText.pieces(""), [])
    }

    func testTheGapIsShort() {
        XCTAssertGreaterThan(TypedText.gapMicroseconds, 0)
        XCTAssertLessThanOrEqual(TypedText.gapMicroseconds, 30_000)
    }
}
