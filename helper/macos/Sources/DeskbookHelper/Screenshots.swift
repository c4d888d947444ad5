// `screenshot`: one window, captured with ScreenCaptureKit at exactly width × height pixels.
// SCScreenshotManager.captureImage(contentFilter:configuration:completionHandler:) needs
// macOS 14, so this method answers `failed` on macOS 13 (the package still declares macOS 13
// so that everything else runs there). The window is found in SCShareableContent by its
// CGWindowID and must belong to `pid` (else `no_window`). The configuration asks for the exact
// size; if the image still comes back another size it is redrawn into a bitmap of that size,
// since a result of another size is a protocol violation. PNG or JPEG via NSBitmapImageRep.
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
        guard CGPreflightScreenCaptureAccess() else {
            throw HelperError(.permission, "Screen Recording is not granted to the Deskbook helper (System Settings > Privacy & Security > Screen Recording)")
        }
        guard let id = UInt32(exactly: windowId) else {
            throw HelperError(.noWindow, "there is no window \(windowId)")
        }
        let listing = Pending<(SCShareableContent?, Error?)>()
        SCShareableContent.getExcludingDesktopWindows(false, onScreenWindowsOnly: false) { content, error in
            listing.deliver((content, error))
        }
        guard let listed = listing.wait(seconds: 10) else {
            throw HelperError(.failed, "ScreenCaptureKit did not list the windows within 10 s")
        }
        guard let content = listed.0 else {
            throw HelperError(.failed, "ScreenCaptureKit could not list the windows: \(listed.1.map { String(describing: $0) } ?? "no reason given")")
        }
        guard let window = content.windows.first(where: { $0.windowID == id }) else {
            throw HelperError(.noWindow, "window \(windowId) is gone or cannot be captured")
        }
        guard window.owningApplication?.processID == pid else {
            throw HelperError(.noWindow, "window \(windowId) is not one of pid \(pid)'s windows")
        }

        let configuration = SCStreamConfiguration()
        configuration.width = width
        configuration.height = height
        configuration.scalesToFit = true
        configuration.showsCursor = false
        let shot = Pending<(CGImage?, Error?)>()
        SCScreenshotManager.captureImage(contentFilter: SCContentFilter(desktopIndependentWindow: window), configuration: configuration) { image, error in
            shot.deliver((image, error))
        }
        guard let taken = shot.wait(seconds: 10) else {
            throw HelperError(.failed, "the capture of window \(windowId) did not finish within 10 s")
        }
        guard let captured = taken.0 else {
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
