// EventRecords: the 248-byte SkyLight records (offsets from yabai's window_manager.c, see
// EventRecords.swift), checked byte by byte. NEVER RUN (see README.md).
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class EventRecordsTests: XCTestCase {
    private let windowId: UInt32 = 0x1234_5678

    /// Offsets of the bytes that are not zero, with their values.
    private func nonZero(_ bytes: [UInt8]) -> [Int: UInt8] {
        var found: [Int: UInt8] = [:]
        for (offset, byte) in bytes.enumerated() where byte != 0 { found[offset] = byte }
        return found
    }

    func testEveryRecordIs248Bytes() {
        XCTAssertEqual(EventRecords.size, 248)
        XCTAssertEqual(EventRecords.focus(windowId: windowId).count, 248)
        XCTAssertEqual(EventRecords.makeKeyPair(windowId: windowId).map { $0.count }, [248, 248])
    }

    func testTheFocusRecordHoldsOnlyItsHeaderTheWindowIdAndTheFocusMark() {
        XCTAssertEqual(nonZero(EventRecords.focus(windowId: windowId)), [
            0x04: 0xf8, 0x08: 0x0d, 0x8a: 0x01,
            0x3c: 0x78, 0x3d: 0x56, 0x3e: 0x34, 0x3f: 0x12,
        ])
    }

    func testTheDefocusRecordIsTheFocusRecordWithItsMarkAt0x8aSetTo2() {
        XCTAssertEqual(EventRecords.defocus(windowId: windowId).count, 248)
        XCTAssertEqual(nonZero(EventRecords.defocus(windowId: windowId)), [
            0x04: 0xf8, 0x08: 0x0d, 0x8a: 0x02,
            0x3c: 0x78, 0x3d: 0x56, 0x3e: 0x34, 0x3f: 0x12,
        ])
    }

    func testTheMakeKeyPairDiffersOnlyInByte8() {
        let pair = EventRecords.makeKeyPair(windowId: windowId)
        var expected: [Int: UInt8] = [0x04: 0xf8, 0x3a: 0x10, 0x3c: 0x78, 0x3d: 0x56, 0x3e: 0x34, 0x3f: 0x12]
        for offset in 0x20..<0x30 { expected[offset] = 0xff }
        expected[0x08] = 0x01
        XCTAssertEqual(nonZero(pair[0]), expected)
        expected[0x08] = 0x02
        XCTAssertEqual(nonZero(pair[1]), expected)
    }

    func testTheWindowIdIsLittleEndian() {
        let record = EventRecords.focus(windowId: 0x0000_0102)
        XCTAssertEqual(Array(record[0x3c..<0x40]), [0x02, 0x01, 0x00, 0x00])
        let largest = EventRecords.focus(windowId: UInt32.max)
        XCTAssertEqual(Array(largest[0x3c..<0x40]), [0xff, 0xff, 0xff, 0xff])
    }

    func testWindowIdZeroLeavesItsBytesZero() {
        XCTAssertEqual(nonZero(EventRecords.focus(windowId: 0)), [0x04: 0xf8, 0x08: 0x0d, 0x8a: 0x01])
    }
}
