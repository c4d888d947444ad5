// ScriptPolicy against test/fixtures/script-policy-vectors.json, the cases
// test/macos/swift-script-policy.test.ts applies to this same Swift's lists, found from this
// source file's path like PolicyVectorTests does.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ScriptPolicyTests: XCTestCase {
    struct Fixture: Decodable {
        let vectors: [Vector]
    }

    struct Vector: Decodable {
        let name: String
        let source: String
        let expect: String
        let apps: [String]?
    }

    static let fixtureURL: URL = PolicyVectorTests.fixtureURL
        .deletingLastPathComponent()
        .appendingPathComponent("script-policy-vectors.json")

    func testVectors() throws {
        let data = try Data(contentsOf: ScriptPolicyTests.fixtureURL)
        let vectors = try JSONDecoder().decode(Fixture.self, from: data).vectors
        XCTAssertFalse(vectors.isEmpty)
        for vector in vectors {
            if vector.expect == "blocked" {
                XCTAssertThrowsError(try ScriptPolicy.check(vector.source), vector.name) { error in
                    XCTAssertEqual((error as? HelperError)?.code, .blocked, vector.name)
                }
            } else {
                XCTAssertNoThrow(try ScriptPolicy.check(vector.source), vector.name)
            }
            if let apps = vector.apps {
                XCTAssertEqual(ScriptPolicy.namedApps(vector.source), apps, vector.name)
            }
        }
    }
}
