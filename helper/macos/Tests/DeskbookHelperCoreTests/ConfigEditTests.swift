// ConfigEdit: "Always Allow" written to config.json as src/config/config-edit.ts writes it:
// every other key kept, the entry added once (case-insensitively), the file 0600, JSON.stringify's
// two-space layout, and a file that is not a JSON object left alone.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ConfigEditTests: XCTestCase {
    private var home = ""

    override func setUp() {
        super.setUp()
        home = NSTemporaryDirectory() + "deskbook-edit-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: home)
        super.tearDown()
    }

    private var path: String { return home + "/config.json" }

    private func write(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func text() throws -> String {
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    private func mode(_ file: String) throws -> Int? {
        return (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue
    }

    func testCreatesHomeAndConfigWhenMissing() throws {
        try ConfigEdit.addToAllow(home: home, entry: "com.apple.calculator")
        XCTAssertEqual(try text(), "{\n  \"allow\": [\n    \"com.apple.calculator\"\n  ]\n}\n")
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try mode(home), 0o700)
    }

    func testKeepsEveryOtherKeyAndAppends() throws {
        try write(#"{"approval": "ask", "allow": ["galculator"], "deny": [], "ax": {"maxNodes": 50}, "cursor": false, "settleMs": 0}"#)
        try ConfigEdit.addToAllow(home: home, entry: "com.apple.calculator")
        let expected = """
        {
          "allow": [
            "galculator",
            "com.apple.calculator"
          ],
          "approval": "ask",
          "ax": {
            "maxNodes": 50
          },
          "cursor": false,
          "deny": [],
          "settleMs": 0
        }

        """
        XCTAssertEqual(try text(), expected)
        XCTAssertNoThrow(try DeskbookConfig.load(home: home))
    }

    func testAnEntryAlreadyThereIsNotRepeated() throws {
        try write(#"{"allow": ["COM.APPLE.CALCULATOR"]}"#)
        try ConfigEdit.addToAllow(home: home, entry: "com.apple.calculator")
        let allow = try JSONValue.parse(Data(text().utf8)).objectValue?["allow"]
        XCTAssertEqual(allow, .array([.string("COM.APPLE.CALCULATOR")]))
    }

    func testALooserFileEndsUp0600AndNoTemporaryFileRemains() throws {
        try write(#"{"approval": "ask"}"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try ConfigEdit.addToList(home: home, list: "deny", entry: "Example")
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home), ["config.json"])
        XCTAssertEqual(try JSONValue.parse(Data(text().utf8)).objectValue?["deny"], .array([.string("Example")]))
    }

    func testAByteOrderMarkIsAccepted() throws {
        try write("\u{FEFF}{\"approval\": \"ask\"}")
        try ConfigEdit.addToAllow(home: home, entry: "Example")
        XCTAssertEqual(try JSONValue.parse(Data(text().utf8)).objectValue?["allow"], .array([.string("Example")]))
    }

    func testAFileThatIsNotAnObjectIsLeftAlone() throws {
        try write("[1, 2]")
        XCTAssertThrowsError(try ConfigEdit.addToAllow(home: home, entry: "Example")) { error in
            XCTAssertEqual(error as? ConfigEdit.EditError, ConfigEdit.EditError(message: "\(self.path) is not a JSON object; not changing it"))
        }
        XCTAssertEqual(try text(), "[1, 2]")
    }

    func testInvalidJSONIsLeftAlone() throws {
        try write("{\"allow\": [")
        XCTAssertThrowsError(try ConfigEdit.addToAllow(home: home, entry: "Example"))
        XCTAssertEqual(try text(), "{\"allow\": [")
    }
}
