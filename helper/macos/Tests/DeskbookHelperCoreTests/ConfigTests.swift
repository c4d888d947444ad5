// DeskbookConfig: config.json with the keys, defaults, merge rules and messages of
// src/config/config.ts. The expected messages were produced by that file's parseConfig.
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ConfigTests: XCTestCase {
    private let source = "/h/config.json"
    private var home: String?

    override func tearDown() {
        if let home = home { try? FileManager.default.removeItem(atPath: home) }
        home = nil
        super.tearDown()
    }

    private func parse(_ text: String) throws -> DeskbookConfig.Loaded {
        return try DeskbookConfig.parse(Data(text.utf8), source: source)
    }

    /// The LoadError that `text` raises, or a failure.
    private func loadError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> DeskbookConfig.LoadError? {
        do {
            let loaded = try parse(text)
            XCTFail("expected an error, got \(loaded.config)", file: file, line: line)
        } catch let error as DeskbookConfig.LoadError {
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
        return nil
    }

    private func makeHome() throws -> String {
        let path = NSTemporaryDirectory() + "deskbook-config-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        home = path
        return path
    }

    func testAMissingFileMeansEveryDefault() throws {
        let loaded = try DeskbookConfig.load(home: try makeHome())
        XCTAssertEqual(loaded.config, DeskbookConfig())
        XCTAssertEqual(loaded.warnings, [])
    }

    func testTheDefaultsAreThoseOfConfigTs() {
        let config = DeskbookConfig()
        XCTAssertEqual(config.approval, .ask)
        XCTAssertEqual(config.allow, [])
        XCTAssertEqual(config.deny, [])
        XCTAssertEqual(config.input, .background)
        XCTAssertEqual(config.foregroundApps, [])
        XCTAssertTrue(config.cursor)
        XCTAssertEqual(config.screenshot.maxLongSide, 1568)
        XCTAssertEqual(config.screenshot.maxPixels, 1_150_000)
        XCTAssertEqual(config.screenshot.format, .png)
        XCTAssertEqual(config.screenshot.quality, 80)
        XCTAssertEqual(config.ax.maxNodes, 800)
        XCTAssertEqual(config.ax.maxDepth, 40)
        XCTAssertEqual(config.ax.maxTextLength, 160)
        XCTAssertTrue(config.log.enabled)
        XCTAssertFalse(config.log.text)
        XCTAssertFalse(config.clipboard.read)
        XCTAssertTrue(config.clipboard.write)
        XCTAssertEqual(config.timeoutMs, 120_000)
        XCTAssertEqual(config.settleMs, 80)
    }

    func testReadsTheFileFromHomeAndMergesSectionsKeyByKey() throws {
        let dir = try makeHome()
        let text = #"{"approval": "allow-all", "allow": ["galculator"], "ax": {"maxNodes": 50}, "log": {"text": true}, "settleMs": 0}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("config.json"))
        let config = try DeskbookConfig.load(home: dir).config
        XCTAssertEqual(config.approval, .allowAll)
        XCTAssertEqual(config.allow, ["galculator"])
        XCTAssertEqual(config.ax.maxNodes, 50)
        XCTAssertEqual(config.ax.maxDepth, 40)
        XCTAssertTrue(config.log.enabled)
        XCTAssertTrue(config.log.text)
        XCTAssertEqual(config.settleMs, 0)
        XCTAssertEqual(Policy.Config(config), Policy.Config(approval: .allowAll, allow: ["galculator"], deny: []))
    }

    func testReadsEveryKey() throws {
        let text = """
        {"approval": "allowlist", "allow": ["a"], "deny": ["b"], "input": "foreground", "foregroundApps": ["c"],
         "cursor": false, "screenshot": {"maxLongSide": 1000, "maxPixels": 500000, "format": "jpeg", "quality": 60},
         "ax": {"maxNodes": 10, "maxDepth": 5, "maxTextLength": 20}, "log": {"enabled": false, "text": true},
         "clipboard": {"read": true, "write": false}, "timeoutMs": 5000, "settleMs": 12.5}
        """
        let loaded = try parse(text)
        var expected = DeskbookConfig()
        expected.approval = .allowlist
        expected.allow = ["a"]
        expected.deny = ["b"]
        expected.input = .foreground
        expected.foregroundApps = ["c"]
        expected.cursor = false
        expected.screenshot.maxLongSide = 1000
        expected.screenshot.maxPixels = 500_000
        expected.screenshot.format = .jpeg
        expected.screenshot.quality = 60
        expected.ax.maxNodes = 10
        expected.ax.maxDepth = 5
        expected.ax.maxTextLength = 20
        expected.log = DeskbookConfig.Log(enabled: false, text: true)
        expected.clipboard = DeskbookConfig.Clipboard(read: true, write: false)
        expected.timeoutMs = 5000
        expected.settleMs = 12.5
        XCTAssertEqual(loaded.config, expected)
        XCTAssertEqual(loaded.warnings, [])
    }

    func testAcceptsAByteOrderMarkAndAWholeNumberWrittenWithAFraction() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data(#"{"ax": {"maxDepth": 3.0}}"#.utf8))
        XCTAssertEqual(try DeskbookConfig.parse(data, source: source).config.ax.maxDepth, 3)
    }

    func testAFileThatIsNotJSONIsAnError() {
        let error = loadError(#"{"approval": ask}"#)
        XCTAssertTrue(error?.message.hasPrefix("/h/config.json: not valid JSON: ") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.hasSuffix("or delete the file to use the defaults.") ?? false, error?.message ?? "")
        XCTAssertNil(error?.key)
    }

    func testTheTopLevelMustBeAnObject() {
        XCTAssertEqual(loadError("[1]")?.message, #"/h/config.json: the config must be a JSON object like {"approval": "ask"}, found an array ([1])."#)
    }

    func testAWrongValueNamesItsKeyWhatWasExpectedAndWhatWasFound() {
        let cases: [(String, String, String)] = [
            (#"{"approval": "sometimes"}"#, "approval",
             #"/h/config.json: "approval" must be one of "ask", "allowlist", "allow-all", found the string "sometimes". Fix the value or remove the key to use the default."#),
            (#"{"screenshot": {"quality": 101}}"#, "screenshot.quality",
             #"/h/config.json: "screenshot.quality" must be an integer from 1 to 100, found number 101. Fix the value or remove the key to use the default."#),
            (#"{"log": true}"#, "log",
             #"/h/config.json: "log" must be an object, found boolean true. Fix the value or remove the key to use the default."#),
            (#"{"ax": {"maxDepth": 2.5}}"#, "ax.maxDepth",
             #"/h/config.json: "ax.maxDepth" must be a positive integer, found number 2.5. Fix the value or remove the key to use the default."#),
            (#"{"timeoutMs": 0}"#, "timeoutMs",
             #"/h/config.json: "timeoutMs" must be a positive number of milliseconds (at most 2147483647), found number 0. Fix the value or remove the key to use the default."#),
            (#"{"allow": ["a", 2]}"#, "allow",
             #"/h/config.json: "allow" must be an array of strings, found an array (["a",2]). Fix the value or remove the key to use the default."#),
            (#"{"deny": "xterm"}"#, "deny",
             #"/h/config.json: "deny" must be an array of strings, found the string "xterm". Fix the value or remove the key to use the default."#),
            (#"{"settleMs": -1}"#, "settleMs",
             #"/h/config.json: "settleMs" must be a number of milliseconds from 0 to 2147483647, found number -1. Fix the value or remove the key to use the default."#),
            (#"{"input": null}"#, "input",
             #"/h/config.json: "input" must be one of "background", "foreground", found null. Fix the value or remove the key to use the default."#),
            (#"{"cursor": 1e-7}"#, "cursor",
             #"/h/config.json: "cursor" must be a boolean (true or false), found number 1e-7. Fix the value or remove the key to use the default."#),
            (#"{"cursor": 0.000015}"#, "cursor",
             #"/h/config.json: "cursor" must be a boolean (true or false), found number 0.000015. Fix the value or remove the key to use the default."#),
        ]
        for (text, key, message) in cases {
            let error = loadError(text)
            XCTAssertEqual(error?.key, key, text)
            XCTAssertEqual(error?.message, message, text)
        }
    }

    func testALongFoundValueIsCut() {
        let long = String(repeating: "y", count: 80)
        let error = loadError("{\"approval\": \"\(long)\"}")
        let found = "found the string \"" + String(repeating: "y", count: 56) + "..."
        XCTAssertTrue(error?.message.contains(found + ". Fix the value") ?? false, error?.message ?? "")
    }

    func testUnknownKeysAreWarningsWithAGuess() throws {
        let loaded = try parse(#"{"aprooval": "ask", "ax": {"maxNode": 5}, "zzzzzzzz": 1}"#)
        XCTAssertEqual(loaded.config, DeskbookConfig())
        XCTAssertEqual(loaded.warnings, [
            #"/h/config.json: unknown key "aprooval" ignored (did you mean "approval"?)"#,
            #"/h/config.json: unknown key "zzzzzzzz" ignored"#,
            #"/h/config.json: unknown key "ax.maxNode" ignored (did you mean "ax.maxNodes"?)"#,
        ])
    }
}
