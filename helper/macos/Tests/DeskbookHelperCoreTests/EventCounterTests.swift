// EventCounter, as test/helper/event-counter.test.ts checks the Linux one: an event between two
// calls is not lost, a wait without events ends at its timeout unchanged, and another thread's
// event wakes a waiting one.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class EventCounterTests: XCTestCase {
    func testAnEventBetweenTwoCallsIsNotLost() {
        let counter = EventCounter()
        let start = counter.wait(42, after: nil, timeout: 0)
        counter.bump(42)
        let next = counter.wait(42, after: start.seq, timeout: 60)
        XCTAssertEqual(next.seq, start.seq + 1)
        XCTAssertTrue(next.changed)
    }

    func testAWaitWithoutEventsEndsUnchanged() {
        let counter = EventCounter()
        counter.bump(7)
        let result = counter.wait(42, after: nil, timeout: 0.05)
        XCTAssertEqual(result.seq, 0)
        XCTAssertFalse(result.changed)
    }

    func testAnotherThreadsEventWakesTheWaiter() {
        let counter = EventCounter()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { counter.bump(42) }
        let result = counter.wait(42, after: 0, timeout: 60)
        XCTAssertTrue(result.changed)
    }

    func testADroppedCountIsAChange() {
        let counter = EventCounter()
        counter.bump(42)
        counter.bump(42)
        counter.drop(42)
        XCTAssertEqual(counter.wait(42, after: 2, timeout: 60).changed, true)
    }
}
