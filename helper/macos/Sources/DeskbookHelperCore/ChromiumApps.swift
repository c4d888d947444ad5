// Which apps get the SkyLight mouse route (`background-skylight`): Chromium browsers and
// Electron apps, whose renderers ignore mouse events posted with the public CGEventPostToPid
// while the app is in the background. Decided from the bundle id and the names of the
// bundle's Contents/Frameworks entries, so the rule is pure and testable.
//
// Sources: the Electron marker (Contents/Frameworks/Electron Framework.framework) and the
// browser bundle ids are the ones trycua's cua-driver checks (its Rust `is_electron_bundle`
// and `CHROME_BUNDLE_IDS`); the Chrome and Chromium framework names are those browsers'
// own bundle layout.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum ChromiumApps {
    public static let bundleIds: Set<String> = [
        "com.google.Chrome", "com.google.Chrome.beta", "com.google.Chrome.canary",
        "org.chromium.Chromium", "com.brave.Browser", "com.microsoft.edgemac",
        "company.thebrowser.Browser", "com.vivaldi.Vivaldi", "com.operasoftware.Opera",
    ]

    public static let frameworkNames: Set<String> = [
        "Electron Framework.framework", "Chromium Framework.framework", "Google Chrome Framework.framework",
    ]

    /// True for a Chromium browser (by bundle id) or any app that embeds Electron or Chromium
    /// (by a framework in `frameworks`, the entry names of Contents/Frameworks).
    public static func isChromium(bundleId: String?, frameworks: [String]) -> Bool {
        if let bundleId = bundleId, bundleIds.contains(bundleId) { return true }
        return frameworks.contains { frameworkNames.contains($0) }
    }
}
