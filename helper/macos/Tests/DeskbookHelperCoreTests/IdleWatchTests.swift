// IdleWatch: the helper may quit after 30 minutes with no client connected, with a clock the
// test moves by hand.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class IdleWatchTests: XCTestCase {
    private var time = Date(timeIntervalSince1970: 1_000_000)

    private func watch() -> IdleWatch {
        return IdleWatch(now: { [unowned self] in self.time })
    }

    private func advance(minutes: Double) {
        time = time.addingTimeInterval(minutes * 60)
    }

    func testTheLimitIsThirtyMinutesCheckedEveryMinute() {
        XCTAssertEqual(IdleWatch.defaultLimit, 1800)
        XCTAssertEqual(IdleWatch.checkInterval, 60)
    }

    func testQuitsThirtyMinutesAfterStartWhenNobodyConnects() {
        let watch = self.watch()
        advance(minutes: 29)
        XCTAssertFalse(watch.shouldQuit(connected: 0))
        advance(minutes: 1)
        XCTAssertTrue(watch.shouldQuit(connected: 0))
    }

    func testNeverQuitsWhileAClientIsConnected() {
        let watch = self.watch()
        watch.connectionsChanged(count: 1)
        advance(minutes: 120)
        XCTAssertFalse(watch.shouldQuit(connected: 1))
    }

    func testCountsFromWhenTheLastClientLeft() {
        let watch = self.watch()
        watch.connectionsChanged(count: 1)
        advance(minutes: 40)
        watch.connectionsChanged(count: 0)
        advance(minutes: 29)
        XCTAssertFalse(watch.shouldQuit(connected: 0))
        advance(minutes: 1)
        XCTAssertTrue(watch.shouldQuit(connected: 0))
    }

    func testAClientSeenOnlyByTheCheckStillResetsTheClock() {
        let watch = self.watch()
        advance(minutes: 20)
        XCTAssertFalse(watch.shouldQuit(connected: 1))
        advance(minutes: 1)
        XCTAssertFalse(watch.shouldQuit(connected: 0))
        advance(minutes: 29)
        XCTAssertFalse(watch.shouldQuit(connected: 0))
        advance(minutes: 1)
        XCTAssertTrue(watch.shouldQuit(connected: 0))
    }

    func testAnotherDisconnectDoesNotRestartTheClock() {
        let watch = self.watch()
        advance(minutes: 20)
        watch.connectionsChanged(count: 0)
        advance(minutes: 10)
        XCTAssertTrue(watch.shouldQuit(connected: 0))
    }
}
