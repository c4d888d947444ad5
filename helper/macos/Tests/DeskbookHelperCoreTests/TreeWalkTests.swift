// TreeWalk on made-up trees: pre-order with depths, the limits, the menu bar nested in the
// window at depth 1, off-screen subtrees left out (outside the screen, the window, or the
// scroll area they sit in), frames only for what is on screen, and nothing left out inside
// the menu bar or a window that is not on screen.
import XCTest
@testable import DeskbookHelperCore

final class TreeWalkTests: XCTestCase {
    struct Fake {
        let name: String
        var frame: ScreenRect? = nil
        var clips = false
        var children: [Fake] = []
    }

    static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> ScreenRect {
        return ScreenRect(x: x, y: y, width: w, height: h)
    }

    let screen = [rect(0, 0, 1000, 800)]

    func walk(_ window: Fake, menuBar: Fake? = nil, prune: Bool = true, maxNodes: Int = 100, maxDepth: Int = 10,
              screens: [ScreenRect]? = nil) -> (names: [String], depths: [Int], framed: [String], truncated: Bool) {
        var reads = 0
        let result = TreeWalk.walk(window: window, menuBar: menuBar, screens: screens ?? screen, prune: prune,
                                   limits: TreeWalk.Limits(maxNodes: maxNodes, maxDepth: maxDepth),
                                   read: { (node: Fake) in
                                       reads += 1
                                       return TreeWalk.Read(frame: node.frame, clipsChildren: node.clips, children: node.children, payload: node.name)
                                   })
        XCTAssertLessThanOrEqual(result.placed.count, reads)
        return (result.placed.map { $0.payload }, result.placed.map { $0.depth },
                result.placed.filter { $0.frame != nil }.map { $0.payload }, result.truncated)
    }

    let window = Fake(name: "window", frame: rect(100, 100, 400, 300), children: [
        Fake(name: "toolbar", frame: rect(100, 100, 400, 40), children: [Fake(name: "button", frame: rect(110, 110, 20, 20))]),
        Fake(name: "label", frame: nil),
        Fake(name: "scroll", frame: rect(100, 150, 400, 200), clips: true, children: [
            Fake(name: "row 1", frame: rect(100, 150, 400, 20)),
            Fake(name: "row 99", frame: rect(100, 2000, 400, 20)),
            Fake(name: "row above", frame: rect(100, 120, 400, 20)),
        ]),
        Fake(name: "offscreen panel", frame: rect(-900, 100, 300, 300), children: [Fake(name: "hidden button", frame: rect(-880, 110, 20, 20))]),
    ])

    func testPreOrderWithDepthsLeavingOutWhatIsNotOnScreen() {
        let result = walk(window)
        XCTAssertEqual(result.names, ["window", "toolbar", "button", "label", "scroll", "row 1"])
        XCTAssertEqual(result.depths, [0, 1, 2, 1, 1, 2])
        XCTAssertEqual(result.framed, ["window", "toolbar", "button", "scroll", "row 1"])
        XCTAssertFalse(result.truncated, "a node off screen is not left out by a limit")
    }

    func testARowScrolledOutOfViewIsLeftOutEvenWhereTheWindowIsOnScreen() {
        // "row above" lies inside the window and on screen, but above the scroll area's frame.
        XCTAssertFalse(walk(window).names.contains("row above"))
    }

    func testTheMenuBarIsNestedInTheWindowAtDepthOneAndKeepsItsClosedMenus() {
        let menuBar = Fake(name: "menu bar", frame: rect(0, 0, 1000, 24), children: [
            Fake(name: "File", frame: rect(10, 0, 40, 24), children: [
                Fake(name: "File menu", frame: rect(10, 24, 0, 0), children: [Fake(name: "Open…", frame: rect(10, 24, 0, 0))]),
            ]),
        ])
        let result = walk(window, menuBar: menuBar)
        XCTAssertEqual(Array(result.names.prefix(5)), ["window", "menu bar", "File", "File menu", "Open…"])
        XCTAssertEqual(Array(result.depths.prefix(5)), [0, 1, 2, 3, 4])
        XCTAssertTrue(result.framed.contains("File"))
        XCTAssertFalse(result.framed.contains("Open…"), "a closed menu's items have no frame")
        XCTAssertEqual(result.names[5], "toolbar")
    }

    func testAWindowNotOnScreenKeepsEveryNodeWithoutFrames() {
        let result = walk(window, prune: false, screens: [])
        XCTAssertEqual(result.names.count, 10)
        XCTAssertEqual(result.framed, [])
    }

    func testMaxNodesAndMaxDepthTruncate() {
        let capped = walk(window, maxNodes: 3)
        XCTAssertEqual(capped.names, ["window", "toolbar", "button"])
        XCTAssertTrue(capped.truncated)
        let shallow = walk(window, maxDepth: 1)
        XCTAssertEqual(shallow.names, ["window", "toolbar", "label", "scroll"])
        XCTAssertTrue(shallow.truncated)
        let flat = walk(window, maxDepth: 0)
        XCTAssertEqual(flat.names, ["window"])
        XCTAssertTrue(flat.truncated)
    }

    func testAnExpiredWalkStopsAndSaysSo() {
        var left = 2
        let result = TreeWalk.walk(window: window, menuBar: nil, screens: screen, prune: true,
                                   limits: TreeWalk.Limits(maxNodes: 100, maxDepth: 10),
                                   expired: { left -= 1; return left < 0 },
                                   read: { (node: Fake) in
                                       TreeWalk.Read(frame: node.frame, clipsChildren: node.clips, children: node.children, payload: node.name)
                                   })
        XCTAssertEqual(result.placed.map { $0.payload }, ["window", "toolbar"])
        XCTAssertTrue(result.truncated)
    }

    func testOnScreenNeedsAnAreaAScreenAndTheClip() {
        XCTAssertNil(TreeWalk.onScreen(TreeWalkTests.rect(10, 10, 0, 10), clip: nil, screens: screen))
        XCTAssertNil(TreeWalk.onScreen(TreeWalkTests.rect(1200, 10, 10, 10), clip: nil, screens: screen))
        XCTAssertNil(TreeWalk.onScreen(TreeWalkTests.rect(10, 10, 10, 10), clip: TreeWalkTests.rect(50, 50, 10, 10), screens: screen))
        XCTAssertEqual(TreeWalk.onScreen(TreeWalkTests.rect(990, 10, 20, 10), clip: nil, screens: screen), TreeWalkTests.rect(990, 10, 10, 10))
        let second = [TreeWalkTests.rect(0, 0, 1000, 800), TreeWalkTests.rect(1000, 0, 800, 600)]
        XCTAssertNotNil(TreeWalk.onScreen(TreeWalkTests.rect(1200, 10, 10, 10), clip: nil, screens: second))
    }
}
