// TypedText: how `type` cuts its text. NEVER RUN (see README.md).
import XCTest
@testable import DeskbookHelperCore

final class TypedTextTests: XCTestCase {
    func testPlainTextIsOneRun() {
        XCTAssertEqual(TypedText.pieces("6*7="), [.text("6*7=")])
    }

    func testNewlinesAndTabsAreKeys() {
        XCTAssertEqual(TypedText.pieces("a\nb\r\nc\td"), [.text("a"), .returnKey, .text("b"), .returnKey, .text("c"), .tabKey, .text("d")])
        XCTAssertEqual(TypedText.pieces("\n\n"), [.returnKey, .returnKey])
    }

    func testLongTextIsCutEveryTwentyUnits() {
        let text = String(repeating: "x", count: 45)
        XCTAssertEqual(TypedText.pieces(text), [.text(String(repeating: "x", count: 20)), .text(String(repeating: "x", count: 20)), .text("xxxxx")])
    }

    func testACharacterIsNeverSplit() {
        // 19 units, then an emoji of two UTF-16 units: it goes whole into the next run.
        let text = String(repeating: "a", count: 19) + "😀"
        XCTAssertEqual(TypedText.pieces(text), [.text(String(repeating: "a", count: 19)), .text("😀")])
    }

    func testEmptyTextSendsNothing() {
        XCTAssertEqual(TypedText.pieces(""), [])
    }
}
