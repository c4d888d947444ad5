// ApprovalGate: the `ask` path of helper/linux/approval.ts with a scripted dialog: each answer
// recorded (or not) on the session, "Always Allow" written to config.json, one dialog shared by
// concurrent calls, and the refusal sentences of the Linux gate.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ApprovalGateTests: XCTestCase {
    /// Answers with `answer`, counting the dialogs and keeping the last request.
    final class ScriptedApprover: Approver {
        private let lock = NSLock()
        private var shown = 0
        private(set) var lastClient: String?
        var answer: (ApprovalRequest) -> ApprovalAnswer

        init(_ answer: @escaping (ApprovalRequest) -> ApprovalAnswer) {
            self.answer = answer
        }

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return shown
        }

        func ask(_ request: ApprovalRequest) -> ApprovalAnswer {
            lock.lock()
            shown += 1
            lastClient = request.client
            lock.unlock()
            return answer(request)
        }
    }

    private let app = Policy.App(name: "Example", bundleId: "com.example.App", executable: "Example")
    private var home = ""
    private var warnings: [String] = []

    override func setUpWithError() throws {
        home = NSTemporaryDirectory() + "deskbook-gate-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        warnings = []
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: home)
        super.tearDown()
    }

    private func gate(_ approver: Approver) -> ApprovalGate {
        let dir = home
        return ApprovalGate(approver: approver, home: { dir }, timeout: 60, warn: { [weak self] in self?.warnings.append($0) })
    }

    private func session(_ client: String = "notebook") -> Session {
        let session = Session()
        session.setClient(client)
        return session
    }

    private func writeConfig(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: home).appendingPathComponent("config.json"))
    }

    private func refusal(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> HelperError? {
        do {
            try body()
            XCTFail("expected a refusal", file: file, line: line)
        } catch let error as HelperError {
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
        return nil
    }

    func testAllowForThisSessionIsRememberedOnTheConnectionOnly() throws {
        let approver = ScriptedApprover { _ in .session }
        let gate = self.gate(approver)
        let first = session()
        try gate.admit(app, detail: "pid 42", session: first)
        try gate.admit(app, detail: "pid 42", session: first)
        XCTAssertEqual(approver.count, 1)
        XCTAssertEqual(approver.lastClient, "notebook")
        XCTAssertEqual(first.approvals, ["com.example.app": .allow])
        XCTAssertEqual(first.approvedApps, ["Example"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/config.json"))
        try gate.admit(app, detail: "pid 42", session: session("other"))
        XCTAssertEqual(approver.count, 2)
    }

    func testAlwaysAllowWritesTheAllowEntryKeepingEveryOtherKeyWithMode0600() throws {
        try writeConfig(#"{"approval": "ask", "allow": ["galculator"], "ax": {"maxNodes": 50}, "log": {"text": true}}"#)
        let approver = ScriptedApprover { _ in .always }
        let first = session()
        try gate(approver).admit(app, detail: "pid 42", session: first)
        XCTAssertEqual(first.approvals, ["com.example.app": .allow])
        let path = home + "/config.json"
        let written = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(written, .object([
            "approval": .string("ask"),
            "allow": .array([.string("galculator"), .string("com.example.App")]),
            "ax": .object(["maxNodes": .number(50)]),
            "log": .object(["text": .bool(true)]),
        ]))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
        // A new connection needs no dialog now: config.json allows the app.
        try gate(approver).admit(app, detail: "pid 42", session: session("other"))
        XCTAssertEqual(approver.count, 1)
        XCTAssertEqual(warnings, [])
    }

    func testAlwaysAllowStillAllowsTheSessionWhenConfigCannotBeWritten() throws {
        try writeConfig(#"{"approval": "ask"}"#)
        let approver = ScriptedApprover { _ in
            // While the dialog is up, config.json becomes something the edit refuses to touch.
            try? Data("[]".utf8).write(to: URL(fileURLWithPath: self.home + "/config.json"))
            return .always
        }
        let first = session()
        let error = refusal { try gate(approver).admit(app, detail: "pid 42", session: first) }
        // An array is not a config: the second decision fails on it, as every gated call would.
        XCTAssertEqual(error?.code, .failed)
        XCTAssertEqual(first.approvals, ["com.example.app": .allow])
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.hasPrefix("could not add com.example.App to config.json: ") ?? false, "\(warnings)")
    }

    func testDenyIsRememberedForTheConnection() {
        let approver = ScriptedApprover { _ in .deny }
        let gate = self.gate(approver)
        let first = session()
        let error = refusal { try gate.admit(app, detail: "pid 42", session: first) }
        XCTAssertEqual(error, HelperError(.denied, "the user chose Deny for Example in this session; to allow it after all, run `deskbook allow \(Policy.allowEntry(app))` and try again"))
        XCTAssertEqual(first.approvals, ["com.example.app": .deny])
        let again = refusal { try gate.admit(app, detail: "pid 42", session: first) }
        XCTAssertEqual(again, HelperError(.denied, "you chose Deny for Example in this session"))
        XCTAssertEqual(approver.count, 1)
    }

    func testNoAnswerWithinTheTimeoutRefusesThatCallOnly() {
        let approver = ScriptedApprover { _ in .timeout }
        let gate = self.gate(approver)
        let first = session()
        let error = refusal { try gate.admit(app, detail: "pid 42", session: first) }
        XCTAssertEqual(error, HelperError(.denied, "nobody answered the approval dialog for Example within a minute; run `deskbook allow \(Policy.allowEntry(app))` and try again"))
        XCTAssertEqual(first.approvals, [:])
        _ = refusal { try gate.admit(app, detail: "pid 42", session: first) }
        XCTAssertEqual(approver.count, 2)
    }

    func testAClosedConnectionRefusesWithoutRemembering() {
        let approver = ScriptedApprover { request in request.isClosed() ? .closed : .session }
        let first = session()
        first.markClosed()
        let error = refusal { try gate(approver).admit(app, detail: "pid 42", session: first) }
        XCTAssertEqual(error, HelperError(.denied, "the connection closed before the approval dialog for Example was answered"))
        XCTAssertEqual(first.approvals, [:])
    }

    func testNoDialogNamesTheEntryToAdd() {
        let approver = ScriptedApprover { _ in .unavailable("no window server") }
        let error = refusal { try gate(approver).admit(app, detail: "pid 42", session: session()) }
        XCTAssertEqual(error, HelperError(.denied, "Example needs approval but no dialog can be shown (no window server); run \"deskbook allow com.example.App\", or add \"com.example.App\" to \"allow\" in \(home)/config.json, or set \"approval\" to \"allow-all\""))
    }

    func testConcurrentCallsForOneAppShareOneDialog() {
        let shown = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // A timeout is not remembered, so a call that missed the shared dialog would open a second one.
        let approver = ScriptedApprover { _ in
            shown.signal()
            release.wait()
            return .timeout
        }
        let gate = self.gate(approver)
        let first = session()
        let lock = NSLock()
        // A class, so the calls change its contents rather than a captured var (mutating a
        // captured var in a @Sendable closure is an error in Swift 5.9).
        final class Collected { var errors: [HelperError] = [] }
        let collected = Collected()
        let done = DispatchGroup()
        let call = {
            done.enter()
            DispatchQueue.global().async {
                let error = self.refusal { try gate.admit(self.app, detail: "pid 42", session: first) }
                lock.lock()
                if let error = error { collected.errors.append(error) }
                lock.unlock()
                done.leave()
            }
        }
        call()
        XCTAssertEqual(shown.wait(timeout: .now() + 5), .success)
        call()
        Thread.sleep(forTimeInterval: 0.3) // the second call is now waiting for the first one's dialog
        release.signal()
        release.signal() // lets a wrong second dialog end too, so the test fails instead of hanging
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(approver.count, 1)
        lock.lock()
        defer { lock.unlock() }
        XCTAssertEqual(collected.errors.count, 2)
        XCTAssertEqual(Set(collected.errors.map { $0.message }), ["nobody answered the approval dialog for Example within a minute; run `deskbook allow \(Policy.allowEntry(app))` and try again"])
    }

    func testBlockedAppsAndConfigDecisionsNeverReachTheDialog() throws {
        let approver = ScriptedApprover { _ in .session }
        let terminal = Policy.App(name: "Terminal", bundleId: "com.apple.Terminal")
        let error = refusal { try gate(approver).admit(terminal, detail: "pid 7", session: session()) }
        XCTAssertEqual(error?.code, .blocked)
        try writeConfig(#"{"approval": "allow-all"}"#)
        try gate(approver).admit(app, detail: "pid 42", session: session())
        try writeConfig(#"{"deny": ["Example"]}"#)
        XCTAssertEqual(refusal { try gate(approver).admit(app, detail: "pid 42", session: session()) }?.code, .denied)
        XCTAssertEqual(approver.count, 0)
    }

    func testAnUnreadableConfigFailsTheCall() throws {
        try writeConfig("{not json")
        let error = refusal { try gate(ScriptedApprover { _ in .session }).admit(app, detail: "pid 42", session: session()) }
        XCTAssertEqual(error?.code, .failed)
    }

    func testTheDialogHoldsTheInputFloorWhileItIsAsked() throws {
        let floor = InputFloor()
        let dir = home
        var heldDuringAsk = false
        let approver = ScriptedApprover { _ in
            heldDuringAsk = floor.dialogShown
            return .session
        }
        let gate = ApprovalGate(approver: approver, home: { dir }, timeout: 60, floor: floor)
        try gate.admit(app, detail: "pid 42", session: session())
        XCTAssertTrue(heldDuringAsk)
        XCTAssertFalse(floor.dialogShown)
    }

    func testTheDeadlineRunsFromTheCallNotFromWhenTheDialogIsShown() throws {
        let floor = InputFloor()
        let dir = home
        var deadline: Date?
        let approver = ScriptedApprover { request in
            deadline = request.deadline
            return .session
        }
        let gate = ApprovalGate(approver: approver, home: { dir }, timeout: 60, floor: floor)
        let asked = Date()
        let inputRuns = DispatchSemaphore(value: 0)
        let inputEnds = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? floor.holdInput {
                inputRuns.signal()
                inputEnds.wait()
            }
        }
        inputRuns.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { inputEnds.signal() }
        try gate.admit(app, detail: "pid 42", session: session()) // waits for the input sequence
        let given = try XCTUnwrap(deadline).timeIntervalSince(asked)
        XCTAssertEqual(given, 60, accuracy: 0.3, "the dialog must not get a fresh minute after waiting")
    }

    func testADialogWhoseTimeRanOutWhileWaitingIsNeverShown() throws {
        let floor = InputFloor()
        let dir = home
        let approver = ScriptedApprover { _ in .session }
        let gate = ApprovalGate(approver: approver, home: { dir }, timeout: 0.2, floor: floor)
        let inputRuns = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? floor.holdInput {
                inputRuns.signal()
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        inputRuns.wait()
        let error = refusal { try gate.admit(app, detail: "pid 42", session: session()) }
        XCTAssertEqual(error?.code, .denied)
        XCTAssertEqual(approver.count, 0)
    }
}
