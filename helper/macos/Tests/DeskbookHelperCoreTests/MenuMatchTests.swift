// MenuMatch against the vectors the Linux helper's test reads (test/fixtures/menu-match-vectors.json),
// found from this source file's path like PolicyVectorTests does.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class MenuMatchTests: XCTestCase {
    struct Fixture: Decodable {
        let vectors: [Vector]
    }

    struct Vector: Decodable {
        let name: String
        let labels: [String]
        let wanted: String
        let expect: Outcome
    }

    /// An index, or an error code.
    enum Outcome: Decodable {
        case index(Int)
        case code(String)

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let index = try? container.decode(Int.self) {
                self = .index(index)
            } else {
                self = .code(try container.decode(String.self))
            }
        }
    }

    static let fixtureURL: URL = PolicyVectorTests.fixtureURL
        .deletingLastPathComponent()
        .appendingPathComponent("menu-match-vectors.json")

    func testVectors() throws {
        let data = try Data(contentsOf: MenuMatchTests.fixtureURL)
        let vectors = try JSONDecoder().decode(Fixture.self, from: data).vectors
        XCTAssertFalse(vectors.isEmpty)
        for vector in vectors {
            switch vector.expect {
            case .index(let index):
                XCTAssertEqual(try MenuMatch.match(vector.labels, wanted: vector.wanted), index, vector.name)
            case .code(let code):
                XCTAssertThrowsError(try MenuMatch.match(vector.labels, wanted: vector.wanted), vector.name) { error in
                    XCTAssertEqual((error as? HelperError)?.code.rawValue, code, vector.name)
                }
            }
        }
    }
}
