// Grant against the safety-tier vectors the Linux helper's test reads
// (test/fixtures/grant-vectors.json), found from this source file's path like PolicyVectorTests
// does. Each vector's config goes through DeskbookConfig.parse, as a user's file would.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class GrantVectorTests: XCTestCase {
    struct Fixture: Decodable {
        let tiers: [Tier]
        let labels: [Label]
    }

    struct Tier: Decodable {
        let name: String
        let app: PolicyVectorTests.VectorApp?
        let method: String
        let expect: String
        let confirm: String
    }

    struct Label: Decodable {
        let label: String
        let word: String?
    }

    static let fixtureURL: URL = PolicyVectorTests.fixtureURL
        .deletingLastPathComponent()
        .appendingPathComponent("grant-vectors.json")

    /// The raw file, for the parts Decodable cannot carry as they are (config and params objects).
    func rawTiers() throws -> [[String: JSONValue]] {
        let root = try JSONValue.parse(try Data(contentsOf: GrantVectorTests.fixtureURL))
        return (root.objectValue?["tiers"]?.arrayValue ?? []).compactMap { $0.objectValue }
    }

    func testTierVectors() throws {
        let data = try Data(contentsOf: GrantVectorTests.fixtureURL)
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        let raw = try rawTiers()
        XCTAssertEqual(raw.count, fixture.tiers.count)
        XCTAssertFalse(fixture.tiers.isEmpty)
        for (vector, fields) in zip(fixture.tiers, raw) {
            let configText = JSONValue.objectText((fields["config"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            let config = try DeskbookConfig.parse(Data(configText.utf8), source: "vector").config
            let app = vector.app.map {
                Policy.App(name: $0.name, bundleId: $0.bundleId, executable: $0.executable, aliases: $0.aliases ?? [], isSelf: $0.isSelf ?? false)
            }
            let grant = Grant.appGrant(config, app: app)
            let refusal = Grant.tierRefusal(grant.grant, method: vector.method, params: fields["params"]?.objectValue ?? [:], who: app?.name ?? "this call")
            XCTAssertEqual(refusal == nil ? "allowed" : "not_granted", vector.expect, vector.name)
            XCTAssertEqual(grant.confirm.rawValue, vector.confirm, vector.name)
        }
    }

    func testLabelVectors() throws {
        let data = try Data(contentsOf: GrantVectorTests.fixtureURL)
        let labels = try JSONDecoder().decode(Fixture.self, from: data).labels
        XCTAssertFalse(labels.isEmpty)
        for vector in labels {
            XCTAssertEqual(Grant.destructiveWord(vector.label), vector.word, vector.label)
        }
    }
}
