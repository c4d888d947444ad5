// JSONValue: decoding keeps JSON's kinds apart, and writing gives JSON.stringify's exact text
// (every expected string below was produced by JSON.stringify).
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class JSONValueTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue {
        return try JSONValue.parse(Data(text.utf8))
    }

    func testDecodesEachKindWithoutConfusingBooleansAndNumbers() throws {
        let value = try parse(#"{"a": true, "b": 1, "c": 0, "d": "x", "e": null, "f": [false, 2.5], "g": {}}"#)
        XCTAssertEqual(value, .object([
            "a": .bool(true), "b": .number(1), "c": .number(0), "d": .string("x"), "e": .null,
            "f": .array([.bool(false), .number(2.5)]), "g": .object([:]),
        ]))
        XCTAssertNil(JSONValue.number(1).boolValue)
        XCTAssertNil(JSONValue.bool(true).numberValue)
    }

    func testDecodesTopLevelScalars() throws {
        XCTAssertEqual(try parse(#""ping""#), .string("ping"))
        XCTAssertEqual(try parse("7"), .number(7))
        XCTAssertEqual(try parse("null"), .null)
    }

    func testRefusesWhatIsNotJSON() {
        XCTAssertThrowsError(try parse("not json at all"))
        XCTAssertThrowsError(try parse(#"{"id": 5, "method": "ping""#))
    }

    func testSafeIntegers() {
        XCTAssertEqual(JSONValue.number(42).safeIntegerValue, 42)
        XCTAssertEqual(JSONValue.number(-3).safeIntegerValue, -3)
        XCTAssertNil(JSONValue.number(2.5).safeIntegerValue)
        XCTAssertNil(JSONValue.number(9_007_199_254_740_992).safeIntegerValue)
        XCTAssertNil(JSONValue.string("1").safeIntegerValue)
    }

    func testWritesStringsAsJSONStringifyDoes() {
        let cases: [(String, String)] = [
            ("plain", #""plain""#),
            ("quote \" and \\ backslash", #""quote \" and \\ backslash""#),
            ("tab\tnew\nline\r", #""tab\tnew\nline\r""#),
            ("\u{01}\u{1F}\u{08}\u{0C}", #""\u0001\u001f\b\f""#),
            ("/slash/ é ✓ 😀", #""/slash/ é ✓ 😀""#),
            ("\u{2028}", "\"\u{2028}\""),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(JSONValue.stringText(value), expected)
        }
    }

    func testWritesNumbersAsJavaScriptDoes() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (4242, "4242"), (-42.25, "-42.25"), (310.5, "310.5"), (123.456, "123.456"),
            (0.1 + 0.2, "0.30000000000000004"), (0.0001, "0.0001"), (0.000015, "0.000015"), (0.000001, "0.000001"),
            (1e-7, "1e-7"), (-1.5e-9, "-1.5e-9"), (5e-324, "5e-324"),
            (9_007_199_254_740_992, "9007199254740992"), (1_152_921_504_606_846_976, "1152921504606847000"),
            (1e20, "100000000000000000000"), (1.2345678901234568e20, "123456789012345680000"),
            (1e21, "1e+21"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(JSONValue.numberText(value), expected, "\(value)")
        }
    }

    func testWritesObjectsWithSortedKeysOrInTheOrderGiven() {
        let value = JSONValue.object(["b": .number(1), "a": .array([.null, .bool(true)])])
        XCTAssertEqual(value.jsonText, #"{"a":[null,true],"b":1}"#)
        XCTAssertEqual(JSONValue.objectText([("z", .number(1)), ("a", .string("x"))]), #"{"z":1,"a":"x"}"#)
    }
}
