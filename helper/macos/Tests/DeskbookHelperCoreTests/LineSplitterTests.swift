// LineSplitter: bytes to lines with the 16 MiB bound, skipping an over-long line to its newline
// as helper/linux/line-reader.ts does (cases mirror test/helper/json-lines.test.ts).
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class LineSplitterTests: XCTestCase {
    private func bytes(_ text: String) -> Data {
        return Data(text.utf8)
    }

    func testTheDefaultBoundIs16MiB() {
        XCTAssertEqual(LineSplitter().maxLineBytes, 16_777_216)
        XCTAssertEqual(MAX_LINE_BYTES, 16_777_216)
    }

    func testReturnsWholeLinesAndKeepsTheRestForTheNextChunk() {
        var splitter = LineSplitter(maxLineBytes: 100)
        XCTAssertEqual(splitter.push(bytes("{\"a\":1}\n{\"b\"")), [.line("{\"a\":1}")])
        XCTAssertEqual(splitter.pendingBytes, 4)
        XCTAssertEqual(splitter.push(bytes(":2}\n\n{\"c\":3}\n")), [.line("{\"b\":2}"), .line("{\"c\":3}")])
        XCTAssertEqual(splitter.pendingBytes, 0)
    }

    func testSkipsBlankLines() {
        var splitter = LineSplitter(maxLineBytes: 100)
        XCTAssertEqual(splitter.push(bytes("\n\n  \r\n{\"id\":77}\n\n")), [.line("{\"id\":77}")])
    }

    func testDecodesAUTF8CharacterCutAcrossChunks() {
        let line = "{\"text\":\"6 × 7 = 42 ✓\"}"
        var splitter = LineSplitter(maxLineBytes: 100)
        var items: [LineSplitter.Item] = []
        for byte in bytes(line + "\n") {
            items += splitter.push(Data([byte]))
        }
        XCTAssertEqual(items, [.line(line)])
    }

    func testAcceptsALineOfExactlyTheBoundAndRefusesOneByteMoreBeforeItsNewline() {
        var splitter = LineSplitter(maxLineBytes: 10)
        XCTAssertEqual(splitter.push(bytes("0123456789\n")), [.line("0123456789")])
        XCTAssertEqual(splitter.push(bytes("01234")), [])
        XCTAssertEqual(splitter.push(bytes("567890")), [.tooLong])
    }

    func testReportsAnOverLongLineOnceAndSkipsItToItsNewline() {
        var splitter = LineSplitter(maxLineBytes: 4)
        XCTAssertEqual(splitter.push(bytes("12345")), [.tooLong])
        XCTAssertEqual(splitter.push(bytes("6789")), [])
        XCTAssertEqual(splitter.push(bytes("0\nok\n")), [.line("ok")])
        XCTAssertEqual(splitter.pendingBytes, 0)
    }

    func testAnOverLongLineWithItsNewlineInOneChunkCostsOnlyThatLine() {
        var splitter = LineSplitter(maxLineBytes: 4)
        XCTAssertEqual(splitter.push(bytes("123456\nok\n")), [.tooLong, .line("ok")])
        XCTAssertEqual(splitter.push(bytes("next\n")), [.line("next")])
    }

    func testAcceptsADataSliceThatDoesNotStartAtZero() {
        let whole = bytes("xx\nab\ncd")
        var splitter = LineSplitter(maxLineBytes: 100)
        XCTAssertEqual(splitter.push(whole[whole.index(whole.startIndex, offsetBy: 3)...]), [.line("ab")])
        XCTAssertEqual(splitter.push(bytes("\n")), [.line("cd")])
    }
}
