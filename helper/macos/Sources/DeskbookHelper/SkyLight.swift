// The private functions the background route needs, looked up once at run time with
// dlopen/dlsym (SkyLight's image first, then every image already loaded), each an optional
// C function pointer: nil when this macOS does not export it, so a future macOS that drops
// one makes background input answer background_unavailable instead of crashing. Nothing
// here is linked at build time. `ping`'s `background` reports what was found.
//
// C signatures (Apple publishes none; taken from projects that call them):
// - CGError SLPSPostEventRecordTo(ProcessSerialNumber *psn, uint8_t *bytes)
//     yabai (src/misc/extern.h, window_manager.c); trycua cua-driver SkyLightEventPost.swift
// - void SLEventPostToPid(pid_t pid, CGEventRef event)             cua-driver SkyLightEventPost.swift
// - void CGEventSetWindowLocation(CGEventRef event, CGPoint point) cua-driver SkyLightEventPost.swift
// - void SLEventSetIntegerValueField(CGEventRef event, uint32_t field, int64_t value)
//     cua-driver SkyLightEventPost.swift (any raw field number, not only the public enum's)
// - CGError _SLPSGetFrontProcess(ProcessSerialNumber *psn)
//     yabai (src/misc/extern.h, window_manager.c), cua-driver FocusWithoutRaise.swift: where
//     the defocus record goes
// - OSStatus GetProcessForPID(pid_t pid, ProcessSerialNumber *psn)
//     deprecated Carbon (HIServices), unavailable to Swift, still looked up by yabai-derived
//     tools; cua-driver notes it may no longer be exported on macOS 15+, so when it is
//     missing the PSN comes from the window's owner instead:
// - int SLSMainConnectionID(void) (also exported as CGSMainConnectionID),
//   CGError SLSGetWindowOwner(int cid, uint32_t wid, int *ownerCid),
//   CGError SLSGetConnectionPSN(int cid, ProcessSerialNumber *psn)    yabai, cua-driver
//
// A ProcessSerialNumber is two UInt32s (high, low); it is kept here as a 2-element [UInt32]
// and handed over as raw bytes, so no Swift struct layout is assumed.
//
// NEVER COMPILED OR RUN (see README.md).
import CoreGraphics
import Darwin
import Foundation

enum SkyLight {
    typealias PostEventRecordTo = @convention(c) (UnsafeMutableRawPointer, UnsafeMutablePointer<UInt8>) -> Int32
    typealias EventPostToPid = @convention(c) (pid_t, CGEvent) -> Void
    typealias SetWindowLocation = @convention(c) (CGEvent, CGPoint) -> Void
    typealias SetIntegerValueField = @convention(c) (CGEvent, UInt32, Int64) -> Void
    typealias GetProcessForPID = @convention(c) (pid_t, UnsafeMutableRawPointer) -> Int32
    typealias GetFrontProcess = @convention(c) (UnsafeMutableRawPointer) -> Int32
    typealias MainConnectionID = @convention(c) () -> Int32
    typealias GetWindowOwner = @convention(c) (Int32, UInt32, UnsafeMutablePointer<Int32>) -> Int32
    typealias GetConnectionPSN = @convention(c) (Int32, UnsafeMutableRawPointer) -> Int32

    private static let image: UnsafeMutableRawPointer? =
        dlopen("/System/Library/PrivateFrameworks/SkyLight.framework/SkyLight", RTLD_LAZY)

    /// A symbol from SkyLight, else from any loaded image (RTLD_DEFAULT is (void *)-2, a macro
    /// Swift does not import), cast to its C function type; nil when nobody exports it.
    static func lookup<T>(_ name: String, _ type: T.Type) -> T? {
        var address: UnsafeMutableRawPointer? = nil
        if let image = image { address = dlsym(image, name) }
        if address == nil { address = dlsym(UnsafeMutableRawPointer(bitPattern: -2), name) }
        guard let found = address else { return nil }
        return unsafeBitCast(found, to: type)
    }

    static let postEventRecordTo = lookup("SLPSPostEventRecordTo", PostEventRecordTo.self)
    static let eventPostToPid = lookup("SLEventPostToPid", EventPostToPid.self)
    static let setWindowLocation = lookup("CGEventSetWindowLocation", SetWindowLocation.self)
    static let setIntegerValueField = lookup("SLEventSetIntegerValueField", SetIntegerValueField.self)
    static let getProcessForPID = lookup("GetProcessForPID", GetProcessForPID.self)
    static let getFrontProcess = lookup("_SLPSGetFrontProcess", GetFrontProcess.self)
    static let mainConnectionID = lookup("SLSMainConnectionID", MainConnectionID.self)
        ?? lookup("CGSMainConnectionID", MainConnectionID.self)
    static let getWindowOwner = lookup("SLSGetWindowOwner", GetWindowOwner.self)
    static let getConnectionPSN = lookup("SLSGetConnectionPSN", GetConnectionPSN.self)

    /// True when some way to a process serial number exists.
    static var hasProcessSerialNumber: Bool {
        return getProcessForPID != nil || (mainConnectionID != nil && getWindowOwner != nil && getConnectionPSN != nil)
    }

    /// `ping`'s `background`: which functions were found.
    static var availability: [String: Bool] {
        return [
            "postEventRecord": postEventRecordTo != nil,
            "postToPid": eventPostToPid != nil,
            "setWindowLocation": setWindowLocation != nil,
            "setIntegerField": setIntegerValueField != nil,
            "processSerialNumber": hasProcessSerialNumber,
            "frontProcess": getFrontProcess != nil,
        ]
    }

    /// The window server's front process, for the defocus record; nil when the function is
    /// missing or fails.
    static func frontProcessSerialNumber() -> [UInt32]? {
        guard let front = getFrontProcess else { return nil }
        var psn: [UInt32] = [0, 0]
        let status = psn.withUnsafeMutableBytes { front($0.baseAddress!) }
        return status == 0 ? psn : nil
    }

    /// The process serial number of `pid` (GetProcessForPID), else of the owner of `windowId`
    /// (the caller has checked that `pid` owns that window). Nil when neither way works.
    static func processSerialNumber(pid: pid_t, windowId: UInt32) -> [UInt32]? {
        var psn: [UInt32] = [0, 0]
        if let lookup = getProcessForPID {
            let status = psn.withUnsafeMutableBytes { lookup(pid, $0.baseAddress!) }
            if status == 0 { return psn }
        }
        guard let main = mainConnectionID, let owner = getWindowOwner, let connectionPSN = getConnectionPSN else { return nil }
        var ownerConnection: Int32 = 0
        guard owner(main(), windowId, &ownerConnection) == 0 else { return nil }
        let status = psn.withUnsafeMutableBytes { connectionPSN(ownerConnection, $0.baseAddress!) }
        return status == 0 ? psn : nil
    }

    /// Posts one 248-byte record (EventRecords) to a process. False when the function is
    /// missing or the window server refuses the record.
    static func post(record: [UInt8], to psn: [UInt32]) -> Bool {
        guard let post = postEventRecordTo, record.count == 0xf8, psn.count == 2 else { return false }
        var bytes = record
        var serial = psn
        let status = serial.withUnsafeMutableBytes { serialBytes in
            bytes.withUnsafeMutableBufferPointer { post(serialBytes.baseAddress!, $0.baseAddress!) }
        }
        return status == 0
    }
}
