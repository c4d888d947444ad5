// The 248-byte (0xf8) window-server event records that SkyLight's private
// SLPSPostEventRecordTo delivers to a process, built as plain bytes so they can be tested
// anywhere. Every byte not named below is zero. The window id is a CGWindowID (UInt32),
// written little-endian (the byte order of every Mac the helper runs on).
//
// Where the layouts come from (no Apple documentation exists for them):
// - the make-key pair: yabai, `window_manager_make_key_window` in src/window_manager.c:
//   0x04 = 0xf8, 0x3a = 0x10, bytes 0x20..<0x30 = 0xff, window id at 0x3c, and 0x08 = 0x01
//   in the first record, 0x02 in the second;
// - the focus record: yabai, `window_manager_focus_window_without_raise` in the same file,
//   also described in trycua's cua-driver (FocusWithoutRaise.swift): 0x04 = 0xf8,
//   0x08 = 0x0d, window id at 0x3c, and 0x8a = 0x01;
// - the defocus record, the same with 0x8a = 0x02: sent first to the front process, with the
//   id of its window losing focus, so that two apps never both believe they are active
//   (yabai sends it the same way, 10 ms before the focus record).
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum EventRecords {
    public static let size = 0xf8
    static let windowIdOffset = 0x3c

    /// The focus record: makes `windowId` the focused window of its app as far as AppKit is
    /// concerned, without asking the window server to raise anything.
    public static func focus(windowId: UInt32) -> [UInt8] {
        var bytes = blank()
        bytes[0x08] = 0x0d
        bytes[0x8a] = 0x01
        write(windowId, into: &bytes)
        return bytes
    }

    /// The defocus record: tells the process it was posted to that `windowId` (its focused
    /// window) lost focus, again without asking anything to move.
    public static func defocus(windowId: UInt32) -> [UInt8] {
        var bytes = focus(windowId: windowId)
        bytes[0x8a] = 0x02
        return bytes
    }

    /// The make-key pair: posted in this order, they make `windowId` the key window inside
    /// its app. The two records differ only in byte 0x08.
    public static func makeKeyPair(windowId: UInt32) -> [[UInt8]] {
        return [makeKey(windowId: windowId, step: 0x01), makeKey(windowId: windowId, step: 0x02)]
    }

    private static func makeKey(windowId: UInt32, step: UInt8) -> [UInt8] {
        var bytes = blank()
        bytes[0x08] = step
        bytes[0x3a] = 0x10
        for offset in 0x20..<0x30 { bytes[offset] = 0xff }
        write(windowId, into: &bytes)
        return bytes
    }

    private static func blank() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes[0x04] = 0xf8
        return bytes
    }

    /// The window id, least significant byte first.
    static func write(_ windowId: UInt32, into bytes: inout [UInt8]) {
        for index in 0..<4 {
            bytes[windowIdOffset + index] = UInt8(truncatingIfNeeded: windowId >> (8 * UInt32(index)))
        }
    }
}
