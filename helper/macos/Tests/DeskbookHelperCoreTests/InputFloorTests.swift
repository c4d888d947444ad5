// InputFloor against the dialog-and-input cases every Deskbook helper must pass: the same file
// the Linux helper's test reads (test/fixtures/input-dialog-rule.json), found from this source
// file's path as PolicyVectorTests does. Then the blocking wrapper with real threads.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class InputFloorTests: XCTestCase {
    struct Table: Decodable {
        let escapeGraceMs: Double
        let inputWaitMs: Double
        let cases: [Case]
    }

    struct Case: Decodable {
        let name: String
        let steps: [Step]
    }

    struct Step: Decodable {
        let at: Double
        let op: String
        let id: String?
        let expect: String?
        let granted: [String]?
    }

    static let tableURL: URL = PolicyVectorTests.fixtureURL
        .deletingLastPathComponent()
        .appendingPathComponent("input-dialog-rule.json")

    func loadTable() throws -> Table {
        return try JSONDecoder().decode(Table.self, from: Data(contentsOf: InputFloorTests.tableURL))
    }

    func testTheConstantsAreTheTables() throws {
        let table = try loadTable()
        XCTAssertEqual(InputFloor.escapeGraceMs, table.escapeGraceMs)
        XCTAssertEqual(InputFloor.inputWait * 1000, table.inputWaitMs)
    }

    func testEveryCaseOfTheSharedTable() throws {
        let table = try loadTable()
        XCTAssertGreaterThan(table.cases.count, 10)
        for entry in table.cases {
            var state = InputFloor.State()
            var numbers: [String: Int] = [:]
            var names: [Int: String] = [:]
            func number(_ name: String?) -> Int {
                let key = name ?? ""
                if let known = numbers[key] { return known }
                let next = numbers.count + 1
                numbers[key] = next
                names[next] = key
                return next
            }
            func spelled(_ answer: InputFloor.State.Answer) -> String { return answer == .go ? "go" : "wait" }
            for (index, step) in entry.steps.enumerated() {
                let label = "\(entry.name), step \(index + 1) (\(step.op))"
                switch step.op {
                case "input": XCTAssertEqual(spelled(state.requestInput(number(step.id))), step.expect, label)
                case "dialog": XCTAssertEqual(spelled(state.requestDialog(number(step.id))), step.expect, label)
                case "inputDone": XCTAssertEqual(state.inputDone(number(step.id)).map { names[$0] ?? "?" }, step.granted, label)
                case "dialogDone": XCTAssertEqual(state.dialogDone(number(step.id), at: step.at).map { names[$0] ?? "?" }, step.granted, label)
                case "giveUp": XCTAssertEqual(state.giveUp(number(step.id)).map { names[$0] ?? "?" }, step.granted, label)
                case "escape": XCTAssertEqual(state.escapeIsSwallowed(at: step.at) ? "swallowed" : "broadcast", step.expect, label)
                default: XCTFail("\(label): unknown op")
                }
            }
        }
    }

    func testInputWaitsForAShownDialogAndRunsWhenItCloses() {
        let floor = InputFloor()
        let shown = expectation(description: "dialog shown")
        let release = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        DispatchQueue.global().async {
            floor.holdDialog {
                shown.fulfill()
                release.wait()
                order.update { $0.append("dialog closes") }
            }
        }
        wait(for: [shown], timeout: 5)
        let ran = expectation(description: "input ran")
        DispatchQueue.global().async {
            try? floor.holdInput { order.update { $0.append("input") } }
            ran.fulfill()
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(order.value, [], "input must not run while the dialog is shown")
        release.signal()
        wait(for: [ran], timeout: 5)
        XCTAssertEqual(order.value, ["dialog closes", "input"])
    }

    func testInputGivesUpWithFailedWhenTheDialogStaysTooLong() {
        let floor = InputFloor(inputWait: 0.2)
        let shown = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            floor.holdDialog {
                shown.signal()
                release.wait()
            }
        }
        shown.wait()
        XCTAssertThrowsError(try floor.holdInput { XCTFail("input ran during the dialog") }) { error in
            XCTAssertEqual((error as? HelperError)?.code, .failed)
        }
        release.signal()
        XCTAssertEqual(try floor.holdInput { 7 }, 7)
    }

    func testEscapeIsSwallowedWhileADialogIsShownAndForTheGraceAfter() {
        let clock = Locked<Double>(0)
        let floor = InputFloor(nowMs: { clock.value })
        XCTAssertFalse(floor.escapeIsSwallowed())
        floor.holdDialog {
            XCTAssertTrue(floor.dialogShown)
            XCTAssertTrue(floor.escapeIsSwallowed())
            clock.update { $0 = 1000 }
        }
        clock.update { $0 = 1400 }
        XCTAssertTrue(floor.escapeIsSwallowed())
        clock.update { $0 = 1500 }
        XCTAssertFalse(floor.escapeIsSwallowed())
    }
}

/// A value shared between test threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func update(_ change: (inout Value) -> Void) {
        lock.lock()
        change(&stored)
        lock.unlock()
    }
}
