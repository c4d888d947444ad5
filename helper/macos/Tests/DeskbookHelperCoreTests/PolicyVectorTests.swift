// Policy.decide against the approval vectors every Deskbook helper must pass: the same file
// the Linux helper's test reads (test/fixtures/policy-vectors.json), found from this source
// file's own path so `swift test` needs no copy of it.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class PolicyVectorTests: XCTestCase {
    struct Fixture: Decodable {
        let vectors: [Vector]
    }

    struct Vector: Decodable {
        let name: String
        let config: VectorConfig
        let app: VectorApp
        let session: [String: String]?
        let expect: String
    }

    struct VectorConfig: Decodable {
        let approval: String?
        let allow: [String]?
        let deny: [String]?
    }

    struct VectorApp: Decodable {
        let name: String
        let bundleId: String?
        let executable: String?
        let aliases: [String]?
        let isSelf: Bool?

        enum CodingKeys: String, CodingKey {
            case name, bundleId, executable, aliases
            case isSelf = "self"
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }

    /// helper/macos/Tests/DeskbookHelperCoreTests/<this file> → the repository root.
    static let fixtureURL: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Tests/DeskbookHelperCoreTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent() // helper/macos
        .deletingLastPathComponent() // helper
        .deletingLastPathComponent() // the repository
        .appendingPathComponent("test")
        .appendingPathComponent("fixtures")
        .appendingPathComponent("policy-vectors.json")

    func loadVectors() throws -> [Vector] {
        let data = try Data(contentsOf: PolicyVectorTests.fixtureURL)
        return try JSONDecoder().decode(Fixture.self, from: data).vectors
    }

    func outcome(_ vector: Vector) throws -> String {
        var config = Policy.Config()
        if let name = vector.config.approval {
            guard let mode = DeskbookConfig.Approval(rawValue: name) else {
                throw FixtureError(description: "\(vector.name): unknown approval \(name)")
            }
            config.approval = mode
        }
        config.allow = vector.config.allow ?? []
        config.deny = vector.config.deny ?? []
        let app = Policy.App(
            name: vector.app.name,
            bundleId: vector.app.bundleId,
            executable: vector.app.executable,
            aliases: vector.app.aliases ?? [],
            isSelf: vector.app.isSelf ?? false)
        var session: [String: Policy.SessionChoice] = [:]
        for (key, answer) in vector.session ?? [:] {
            guard let choice = Policy.SessionChoice(rawValue: answer) else {
                throw FixtureError(description: "\(vector.name): unknown session answer \(answer)")
            }
            session[key] = choice
        }
        switch Policy.decide(config, app, session) {
        case .allowed:
            return "allowed"
        case .ask:
            return "ask"
        case .refused(let code, _):
            return code.rawValue
        }
    }

    func testTheFixtureHasVectorsForEveryOutcome() throws {
        let outcomes = Set(try loadVectors().map { $0.expect })
        XCTAssertEqual(outcomes, ["allowed", "ask", "blocked", "denied", "not_allowed"])
    }

    func testEveryVectorGetsItsExpectedOutcome() throws {
        let vectors = try loadVectors()
        XCTAssertGreaterThan(vectors.count, 30)
        for vector in vectors {
            XCTAssertEqual(try outcome(vector), vector.expect, vector.name)
        }
    }

    func testARefusalTellsHowToUnlockTheApp() {
        let decision = Policy.decide(
            Policy.Config(approval: .allowlist), Policy.App(name: "Galculator", bundleId: "galculator"), [:])
        guard case .refused(let code, let message) = decision else {
            return XCTFail("expected a refusal, got \(decision)")
        }
        XCTAssertEqual(code, .notAllowed)
        XCTAssertTrue(message.contains(#"add "galculator" to "allow""#), message)
    }

    func testMacOSTerminalIsBlockedByBundleIdWhateverItsName() {
        let decision = Policy.decide(
            Policy.Config(approval: .allowAll), Policy.App(name: "Anything", bundleId: "com.apple.Terminal"), [:])
        XCTAssertEqual(decision, .refused(.blocked, #"Anything is blocked by default; add "com.apple.Terminal" to "allow" in config.json to unlock it"#))
    }

    func testSessionKeyAndAllowEntryPreferTheBundleId() {
        let app = Policy.App(name: "Calculator", bundleId: "com.apple.Calculator", executable: "Calculator")
        XCTAssertEqual(Policy.appKey(app), "com.apple.calculator")
        XCTAssertEqual(Policy.allowEntry(app), "com.apple.Calculator")
        XCTAssertEqual(Policy.appNames(app), ["Calculator", "com.apple.Calculator"])
    }

    func testTheBlockedListIsLowercase() {
        for name in BlockedApps.names {
            XCTAssertEqual(name, name.lowercased())
        }
    }
}
