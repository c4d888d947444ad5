// RequestHandler: the wire rules of docs/backend-protocol.md without a socket (the cases
// mirror test/contract/wire.test.ts): hello first, every bad line answered with bad_request
// under the id when it can be read, and the connection served on.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class RequestHandlerTests: XCTestCase {
    /// Answers ping; fails everything else, naming the method.
    final class PingDispatcher: Dispatcher {
        func call(_ request: Request, session: Session, reply: @escaping (Result<JSONValue, HelperError>) -> Void) {
            if request.method == "ping" {
                reply(.success(.object(["method": .string(request.method)])))
            } else {
                reply(.failure(HelperError(.failed, "no \(request.method) here")))
            }
        }
    }

    private let hello = #"{"id": 1, "method": "hello", "params": {"client": "tests", "protocol": 1}}"#

    /// Feeds each line in order on one session and returns the reply lines once `count` arrived.
    private func replies(to lines: [LineSplitter.Item], count: Int, session: Session = Session()) -> [String] {
        let handler = RequestHandler(
            version: "test 1", dispatcher: PingDispatcher(), platform: "darwin", pid: 99,
            callQueue: DispatchQueue(label: "deskbook.tests.calls"))
        let lock = NSLock()
        var received: [String] = []
        let done = expectation(description: "\(count) replies")
        done.expectedFulfillmentCount = count
        for item in lines {
            handler.handle(item, session: session) { data in
                lock.lock()
                received.append(String(decoding: data, as: UTF8.self))
                lock.unlock()
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 5)
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    private func replies(to lines: [String], count: Int, session: Session = Session()) -> [String] {
        return replies(to: lines.map { LineSplitter.Item.line($0) }, count: count, session: session)
    }

    private func field(_ line: String, _ path: String...) -> JSONValue? {
        var value = try? JSONValue.parse(Data(line.utf8))
        for key in path {
            value = value?.objectValue?[key]
        }
        return value
    }

    func testAnswersHelloWithVersionProtocolPlatformAndPidThenServes() {
        let session = Session()
        let lines = replies(to: [hello, #"{"id": 7, "method": "ping"}"#], count: 2, session: session)
        XCTAssertTrue(lines.contains(#"{"id":1,"result":{"pid":99,"platform":"darwin","protocol":1,"version":"test 1"}}"# + "\n"), "\(lines)")
        XCTAssertTrue(lines.contains(#"{"id":7,"result":{"method":"ping"}}"# + "\n"), "\(lines)")
        XCTAssertEqual(session.client, "tests")
    }

    func testRefusesEveryMethodBeforeHello() {
        let lines = replies(to: [#"{"id": 2, "method": "ping"}"#], count: 1)
        XCTAssertEqual(lines, [#"{"id":2,"error":{"code":"bad_request","message":"send hello before ping"}}"# + "\n"])
    }

    func testRefusesAnotherProtocolNamingBothVersions() {
        let session = Session()
        let lines = replies(to: [#"{"id": 3, "method": "hello", "params": {"client": "tests", "protocol": 2}}"#], count: 1, session: session)
        XCTAssertEqual(field(lines[0], "error", "code"), .string("bad_request"))
        XCTAssertEqual(field(lines[0], "error", "message"), .string("this helper speaks protocol 1; the client speaks protocol 2"))
        XCTAssertNil(session.client)
    }

    func testRefusesBadHelloParamsNamingTheField() {
        let lines = replies(to: [#"{"id": 4, "method": "hello", "params": {"client": "tests", "protocol": 1, "bogus": true}}"#], count: 1)
        XCTAssertEqual(field(lines[0], "error", "message"), .string("hello params: unknown field `bogus`"))
    }

    func testAnswersALineThatIsNotJSONWithIdNull() {
        let lines = replies(to: ["not json at all"], count: 1)
        XCTAssertEqual(field(lines[0], "id"), .null)
        XCTAssertEqual(field(lines[0], "error", "code"), .string("bad_request"))
    }

    func testAnswersJSONThatIsNotARequestUnderItsIdWhenReadable() {
        let cases: [(String, JSONValue)] = [
            ("[1, 2, 3]", .null),
            (#""ping""#, .null),
            (#"{"method": "ping"}"#, .null),
            (#"{"id": 41, "params": {}}"#, .number(41)),
            (#"{"id": "forty-two", "method": 7}"#, .string("forty-two")),
            (#"{"id": 43, "method": "ping", "params": [1]}"#, .number(43)),
        ]
        for (line, id) in cases {
            let reply = replies(to: [line], count: 1)[0]
            XCTAssertEqual(field(reply, "id"), id, line)
            XCTAssertEqual(field(reply, "error", "code"), .string("bad_request"), line)
            XCTAssertNil(field(reply, "result"), line)
        }
    }

    func testAnswersAnUnknownMethodNamingIt() {
        let lines = replies(to: [hello, #"{"id": "x", "method": "frobnicate", "params": {}}"#], count: 2)
        XCTAssertTrue(lines.contains(#"{"id":"x","error":{"code":"bad_request","message":"unknown method \"frobnicate\""}}"# + "\n"), "\(lines)")
    }

    func testPassesTheDispatchersErrorsThrough() {
        let lines = replies(to: [hello, #"{"id": 5, "method": "listApps"}"#], count: 2)
        XCTAssertTrue(lines.contains(#"{"id":5,"error":{"code":"failed","message":"no listApps here"}}"# + "\n"), "\(lines)")
    }

    func testAnswersAnOverLongLineWithIdNull() {
        let lines = replies(to: [LineSplitter.Item.tooLong], count: 1)
        XCTAssertEqual(lines, [#"{"id":null,"error":{"code":"bad_request","message":"a line is over the 16777216-byte limit; it was skipped"}}"# + "\n"])
    }

    func testEventsAndRepliesAreOneLineEach() {
        XCTAssertEqual(String(decoding: Event.escape.line, as: UTF8.self), #"{"event":"escape"}"# + "\n")
        XCTAssertEqual(ErrorCode.allCases.map { $0.rawValue }.count, 16)
    }
}
