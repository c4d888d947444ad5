// ChromiumApps: which apps take the SkyLight mouse route. NEVER RUN (see README.md).
import Foundation
import XCTest
@testable import DeskbookHelperCore

final class ChromiumAppsTests: XCTestCase {
    func testChromiumBrowsersAreKnownByBundleId() {
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: "com.google.Chrome", frameworks: []))
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: "com.microsoft.edgemac", frameworks: []))
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: "com.brave.Browser", frameworks: []))
    }

    func testElectronAppsAreKnownByTheirFramework() {
        let frameworks = ["Mantle.framework", "Electron Framework.framework", "Squirrel.framework"]
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: "com.tinyspeck.slackmacgap", frameworks: frameworks))
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: nil, frameworks: ["Electron Framework.framework"]))
    }

    func testAChromeFrameworkCountsWhateverTheBundleId() {
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: "com.example.browser", frameworks: ["Google Chrome Framework.framework"]))
        XCTAssertTrue(ChromiumApps.isChromium(bundleId: nil, frameworks: ["Chromium Framework.framework"]))
    }

    func testAppKitAppsAreNot() {
        XCTAssertFalse(ChromiumApps.isChromium(bundleId: "com.apple.TextEdit", frameworks: []))
        XCTAssertFalse(ChromiumApps.isChromium(bundleId: "com.apple.Safari", frameworks: ["Sparkle.framework"]))
        XCTAssertFalse(ChromiumApps.isChromium(bundleId: nil, frameworks: []))
    }

    func testNamesMatchExactly() {
        XCTAssertFalse(ChromiumApps.isChromium(bundleId: "com.google.chrome", frameworks: []))
        XCTAssertFalse(ChromiumApps.isChromium(bundleId: nil, frameworks: ["electron framework.framework", "Electron Framework"]))
    }
}
