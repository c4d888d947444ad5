// Event: the unsolicited lines, exactly as docs/backend-protocol.md writes them.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class EventTests: XCTestCase {
    func testEscape() {
        XCTAssertEqual(String(decoding: Event.escape.line, as: UTF8.self), #"{"event":"escape"}"# + "\n")
        XCTAssertEqual(Event.escape.name, "escape")
    }

    func testStopCarriesItsReason() {
        let event = Event.stop(reason: "Stop Running Scripts was chosen in the Deskbook Helper menu")
        XCTAssertEqual(event.name, "stop")
        XCTAssertEqual(
            String(decoding: event.line, as: UTF8.self),
            #"{"event":"stop","reason":"Stop Running Scripts was chosen in the Deskbook Helper menu"}"# + "\n")
    }

    func testAReasonIsEscapedAsJSON() {
        XCTAssertEqual(Event.stop(reason: "a \"quoted\"\nline").text, #"{"event":"stop","reason":"a \"quoted\"\nline"}"#)
    }
}
