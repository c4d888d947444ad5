// `screenshot`: one window, captured with ScreenCaptureKit at exactly width × height pixels.
// SCScreenshotManager.captureImage(contentFilter:configuration:completionHandler:) needs
// macOS 14, so this method answers `failed` on macOS 13 (the package still declares macOS 13
// so that everything else runs there). The window is found among the windows on screen in
// SCShareableContent by its CGWindowID and must belong to `pid` (else `no_window`; a minimized
// or hidden window has nothing on screen to capture). The configuration asks for the exact size
// with `preservesAspectRatio` off, so the window fills the whole image: with it on (the
// default) a size of another aspect comes back letterboxed, and image pixels no longer map
// linearly to window points. If the image still comes back another size it is redrawn into a
// bitmap of that size (stretched the same way). PNG or JPEG via NSBitmapImageRep.
//
// Screen Recording is decided by ScreenCaptureKit itself: listing the windows fails with
// SCStreamError.userDeclined without it. CGPreflightScreenCaptureAccess() is not asked first,
// since it answers false for a granted app launched as another process's child (reported by
// projects that capture from helpers, such as trycua's cua-driver Capture/WindowCapture.swift).
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import CoreGraphics
import DeskbookHelperCore
import Foundation
import ScreenCaptureKit

enum Screenshots {
    static func capture(pid: pid_t, windowId: Int, width: Int, height: Int, format: String, quality: Int) throws -> JSONValue {
        guard #available(macOS 14.0, *) else {
            throw HelperError(.failed, "screenshots need macOS 14 (ScreenCaptureKit's SCScreenshotManager)")
        }
        guard let id = UInt32(exactly: windowId) else {
            throw HelperError(.noWindow, "there is no window \(windowId)")
        }
        let listing = Pending<(SCShareableContent?, Error?)>()
        SCShareableContent.getExcludingDesktopWindows(false, onScreenWindowsOnly: true) { content, error in
            listing.deliver((content, error))
        }
        guard let listed = listing.wait(seconds: 10) else {
            throw HelperError(.failed, "ScreenCaptureKit did not list the windows within 10 s")
        }
        guard let content = listed.0 else {
            throw refusal(listed.1)
        }
        guard let window = content.windows.first(where: { $0.windowID == id }) else {
            throw HelperError(.noWindow, "window \(windowId) is gone or not on screen (minimized, hidden or on another Space), so there is nothing to capture")
        }
        guard window.owningApplication?.processID == pid else {
            throw HelperError(.noWindow, "window \(windowId) is not one of pid \(pid)'s windows")
        }

        let configuration = SCStreamConfiguration()
        configuration.width = width
        configuration.height = height
        configuration.scalesToFit = true
        configuration.preservesAspectRatio = false
        configuration.showsCursor = false
        let shot = Pending<(CGImage?, Error?)>()
        SCScreenshotManager.captureImage(contentFilter: SCContentFilter(desktopIndependentWindow: window), configuration: configuration) { image, error in
            shot.deliver((image, error))
        }
        guard let taken = shot.wait(seconds: 10) else {
            throw HelperError(.failed, "the capture of window \(windowId) did not finish within 10 s")
        }
        guard let captured = taken.0 else {
            if Screenshots.isDeclined(taken.1) { throw refusal(taken.1) }
            throw HelperError(.noWindow, "window \(windowId) could not be captured: \(taken.1.map { String(describing: $0) } ?? "no reason given")")
        }
        let image = (captured.width == width && captured.height == height) ? captured : try redraw(captured, width: width, height: height)

        let bitmap = NSBitmapImageRep(cgImage: image)
        let jpeg = format == "jpeg"
        let data = jpeg
            ? bitmap.representation(using: .jpeg, properties: [.compressionFactor: Double(quality) / 100])
            : bitmap.representation(using: .png, properties: [:])
        guard let encoded = data else {
            throw HelperError(.failed, "could not encode the capture as \(jpeg ? "JPEG" : "PNG")")
        }
        return .object([
            "data": .string(encoded.base64EncodedString()),
            "width": .number(Double(width)),
            "height": .number(Double(height)),
            "mimeType": .string(jpeg ? "image/jpeg" : "image/png"),
        ])
    }

    /// True when ScreenCaptureKit refused for want of Screen Recording.
    static func isDeclined(_ error: Error?) -> Bool {
        guard let error = error as NSError? else { return false }
        return error.domain == SCStreamErrorDomain && error.code == SCStreamError.Code.userDeclined.rawValue
    }

    /// `permission` when ScreenCaptureKit declined, `failed` for anything else.
    private static func refusal(_ error: Error?) -> HelperError {
        if isDeclined(error) {
            return HelperError(.permission, "Screen Recording is not granted to the Deskbook helper (System Settings > Privacy & Security > Screen Recording)")
        }
        return HelperError(.failed, "ScreenCaptureKit could not list the windows: \(error.map { String(describing: $0) } ?? "no reason given")")
    }

    /// The image scaled into a new bitmap of exactly width × height.
    private static func redraw(_ image: CGImage, width: Int, height: Int) throws -> CGImage {
        guard let context = CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                                      space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else {
            throw HelperError(.failed, "could not make a \(width)×\(height) bitmap")
        }
        context.interpolationQuality = .high
        context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
        guard let scaled = context.makeImage() else {
            throw HelperError(.failed, "could not scale the capture to \(width)×\(height)")
        }
        return scaled
    }
}
