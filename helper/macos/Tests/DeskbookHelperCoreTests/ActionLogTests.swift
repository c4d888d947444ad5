// actions.log lines, as in test/linux/helper-policy.test.ts: fixed fields first, typed text
// as its length unless log.text is on, performAction's own action as axAction, refusals.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ActionLogTests: XCTestCase {
    /// 2025-01-05T10:20:30.123Z
    private let at = Date(timeIntervalSince1970: 1_736_072_430.1234)

    private func record(_ action: String, _ params: [String: JSONValue], route: String? = nil, refused: String? = nil) -> ActionLog.Record {
        return ActionLog.Record(
            client: "deskbook", step: "compute 6 × 7", app: "Galculator", pid: 4242, action: action,
            params: params, route: route, refused: refused)
    }

    func testLogsTypedTextAsItsLengthUnlessLogTextIsOn() {
        let typed = record("type", ["pid": .number(4242), "text": .string("6*7\n")], route: "foreground")
        XCTAssertEqual(
            ActionLog.line(typed, log: DeskbookConfig.Log(enabled: true, text: false), now: at),
            #"{"ts":"2025-01-05T10:20:30.123Z","client":"deskbook","step":"compute 6 × 7","app":"Galculator","pid":4242,"action":"type","length":4,"route":"foreground"}"#)
        XCTAssertEqual(
            ActionLog.line(typed, log: DeskbookConfig.Log(enabled: true, text: true), now: at),
            #"{"ts":"2025-01-05T10:20:30.123Z","client":"deskbook","step":"compute 6 × 7","app":"Galculator","pid":4242,"action":"type","text":"6*7\n","route":"foreground"}"#)
    }

    func testCountsLengthInUTF16CodeUnitsAsJavaScriptDoes() {
        let line = ActionLog.line(record("setValue", ["pid": .number(1), "index": .number(3), "value": .string("😀é")]),
                                  log: DeskbookConfig.Log(), now: at)
        XCTAssertTrue(line.contains(#""index":3,"length":3"#), line)
    }

    func testKeepsTheMethodInActionAndPerformActionsOwnActionAsAxAction() {
        let line = ActionLog.line(record("performAction", ["pid": .number(4242), "index": .number(12), "action": .string("AXPress")]),
                                  log: DeskbookConfig.Log(), now: at)
        XCTAssertTrue(line.contains(#""action":"performAction","index":12,"axAction":"AXPress"}"#), line)
    }

    func testRecordsARefusal() {
        let line = ActionLog.line(record("click", ["pid": .number(4242), "x": .number(1), "y": .number(2)], refused: "blocked"),
                                  log: DeskbookConfig.Log(), now: at)
        XCTAssertTrue(line.hasSuffix(#""action":"click","x":1,"y":2,"refused":"blocked"}"#), line)
    }

    func testAppendsWithMode0600AndWritesNothingWhenLoggingIsOff() throws {
        let home = NSTemporaryDirectory() + "deskbook-log-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let path = (home as NSString).appendingPathComponent("actions.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o644]))
        let click = record("click", ["pid": .number(4242), "x": .number(1), "y": .number(2)])
        try ActionLog.append(home: home, log: DeskbookConfig.Log(), record: click)
        try ActionLog.append(home: home, log: DeskbookConfig.Log(), record: click)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").count, 2)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)

        let quiet = (home as NSString).appendingPathComponent("quiet")
        try ActionLog.append(home: quiet, log: DeskbookConfig.Log(enabled: false, text: false), record: click)
        XCTAssertFalse(FileManager.default.fileExists(atPath: (quiet as NSString).appendingPathComponent("actions.log")))
    }

    func testLogsExactlyTheMethodsThatAct() {
        XCTAssertEqual(ActionLog.loggedMethods, [
            "launch", "activate", "performAction", "setValue", "focusElement", "selectText",
            "keys", "type", "click", "scroll", "drag", "move", "makeKey",
        ])
    }
}
