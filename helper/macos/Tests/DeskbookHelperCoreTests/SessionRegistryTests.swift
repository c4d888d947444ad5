// SessionRegistry: who is connected for the menu bar and the idle quit. RequestHandler adds a
// session on hello and removes it when its connection closes.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class SessionRegistryTests: XCTestCase {
    final class NoDispatcher: Dispatcher {
        func call(_ request: Request, session: Session, reply: @escaping (Result<JSONValue, HelperError>) -> Void) {
            reply(.failure(HelperError(.failed, "not here")))
        }
    }

    private func named(_ client: String) -> Session {
        let session = Session()
        session.setClient(client)
        return session
    }

    func testListsSessionsInOrderWithTheirApprovedApps() {
        let registry = SessionRegistry()
        let first = named("notebook")
        let second = named("agent")
        registry.add(first)
        registry.add(second)
        registry.add(first)
        first.record(.allow, forKey: "com.apple.calculator", name: "Calculator")
        first.record(.allow, forKey: "org.example.b", name: "banana")
        first.record(.deny, forKey: "com.apple.textedit", name: "TextEdit")
        XCTAssertEqual(registry.count, 2)
        XCTAssertEqual(registry.entries, [
            SessionRegistry.Entry(client: "notebook", approvedApps: ["banana", "Calculator"]),
            SessionRegistry.Entry(client: "agent", approvedApps: []),
        ])
        registry.remove(first)
        XCTAssertEqual(registry.entries, [SessionRegistry.Entry(client: "agent", approvedApps: [])])
    }

    func testRevokeForgetsAllowAnswersButKeepsDenials() {
        let registry = SessionRegistry()
        let session = named("notebook")
        registry.add(session)
        session.record(.allow, forKey: "com.apple.calculator", name: "Calculator")
        session.record(.deny, forKey: "com.apple.textedit", name: "TextEdit")
        registry.revokeSessionApprovals()
        XCTAssertEqual(session.approvals, ["com.apple.textedit": .deny])
        XCTAssertEqual(registry.entries.first?.approvedApps, [])
    }

    func testReportsChangesButNotTheRemovalOfAStranger() {
        let registry = SessionRegistry()
        var changes = 0
        registry.onChange = { changes += 1 }
        let session = named("notebook")
        registry.add(session)
        registry.remove(Session())
        registry.remove(session)
        registry.revokeSessionApprovals()
        XCTAssertEqual(changes, 3)
        XCTAssertEqual(registry.count, 0)
    }

    func testTheRequestHandlerAddsOnHelloAndRemovesOnClose() {
        let registry = SessionRegistry()
        let handler = RequestHandler(
            version: "test 1", dispatcher: NoDispatcher(), platform: "darwin", pid: 99,
            callQueue: DispatchQueue(label: "deskbook.tests.registry"), registry: registry)
        let session = Session()
        let replied = expectation(description: "hello answered")
        let hello = #"{"id": 1, "method": "hello", "params": {"client": "notebook", "protocol": 1}}"#
        handler.handle(.line(hello), session: session) { _ in replied.fulfill() }
        wait(for: [replied], timeout: 5)
        XCTAssertEqual(registry.entries, [SessionRegistry.Entry(client: "notebook", approvedApps: [])])
        handler.closed(session)
        XCTAssertEqual(registry.count, 0)
    }

    func testAFailedHelloRegistersNothing() {
        let registry = SessionRegistry()
        let handler = RequestHandler(version: "test 1", dispatcher: NoDispatcher(), registry: registry)
        let replied = expectation(description: "hello refused")
        let hello = #"{"id": 1, "method": "hello", "params": {"client": "notebook", "protocol": 99}}"#
        handler.handle(.line(hello), session: Session()) { _ in replied.fulfill() }
        wait(for: [replied], timeout: 5)
        XCTAssertEqual(registry.count, 0)
    }
}
