// ScreenPoints: window-local points and AppKit origins. NEVER RUN (see README.md).
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ScreenPointsTests: XCTestCase {
    func testAWindowLocalPointIsRelativeToTheWindowsTopLeftCorner() {
        let local = ScreenPoints.windowLocal(x: 310, y: 260, windowX: 100, windowY: 50)
        XCTAssertEqual(local.x, 210)
        XCTAssertEqual(local.y, 210)
    }

    func testAWindowOnASecondScreenLeftOfThePrimaryHasNegativeBounds() {
        let local = ScreenPoints.windowLocal(x: -500, y: 20.5, windowX: -1440, windowY: 0)
        XCTAssertEqual(local.x, 940)
        XCTAssertEqual(local.y, 20.5)
    }

    func testAPointOutsideTheWindowGivesNegativeCoordinates() {
        let local = ScreenPoints.windowLocal(x: -1, y: -1, windowX: 100, windowY: 50)
        XCTAssertEqual(local.x, -101)
        XCTAssertEqual(local.y, -51)
    }

    func testTheAppKitOriginIsTheBottomLeftCornerMeasuredUpFromThePrimaryScreensBottom() {
        let origin = ScreenPoints.appKitOrigin(x: 200, y: 100, height: 24, primaryHeight: 900)
        XCTAssertEqual(origin.x, 200)
        XCTAssertEqual(origin.y, 776)
    }

    func testTheTopLeftCornerOfThePrimaryScreen() {
        let origin = ScreenPoints.appKitOrigin(x: 0, y: 0, height: 0, primaryHeight: 1080)
        XCTAssertEqual(origin.y, 1080)
    }
}
