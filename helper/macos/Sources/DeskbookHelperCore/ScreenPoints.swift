// Conversions of the protocol's points (global screen points, top-left origin, y down) that
// the background route and the agent cursor need. Pure, so they are tested with the core.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum ScreenPoints {
    /// A screen point relative to a window's top-left corner (what CGEventSetWindowLocation
    /// takes): the window's bounds come from CGWindowListCopyWindowInfo, in the same top-left
    /// screen coordinates as the point.
    public static func windowLocal(x: Double, y: Double, windowX: Double, windowY: Double) -> (x: Double, y: Double) {
        return (x - windowX, y - windowY)
    }

    /// The AppKit (bottom-left origin, y up) origin of a `width` × `height` box whose top-left
    /// corner is at the top-left-origin point (x, y); `primaryHeight` is the height of the
    /// primary screen, whose bottom-left corner is AppKit's (0, 0).
    public static func appKitOrigin(x: Double, y: Double, height: Double, primaryHeight: Double) -> (x: Double, y: Double) {
        return (x, primaryHeight - y - height)
    }
}
