// How `axTree` walks one window, apart from how an element is read: pre-order from the window
// (d = 0) within maxNodes and maxDepth, with the menu bar nested in the window at d = 1 (the
// protocol's shape, and where the Linux helper finds a GTK menu bar), and subtrees that are
// not on screen left out, as helper/linux/atspi-tree.ts keeps only SHOWING objects. Pure, so
// the walk is tested with the core; Accessibility.swift supplies the reads.
//
// On screen: an element's frame has an area and overlaps both a screen and what its ancestors
// leave visible (the window's frame, and the frame of every scroll area it sits in, since rows
// scrolled out of view keep their frames). An element without a frame cannot be judged and is
// kept. A node's `frame` is given only when it is on screen (the protocol: absent when the
// element is not on screen). Nothing is left out inside the menu bar (closed menus' items are
// off screen yet asked for with `menus`) or in a minimized window (its SHOWING is VISIBLE on
// Linux); their off-screen nodes simply have no frame.
import Foundation

/// A rectangle in global screen points, top-left origin (the protocol's frames).
public struct ScreenRect: Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// From a protocol frame [x, y, width, height]; nil for anything else.
    public init?(frame: [Double]) {
        guard frame.count == 4 else { return nil }
        self.init(x: frame[0], y: frame[1], width: frame[2], height: frame[3])
    }

    public var hasArea: Bool { return width > 0 && height > 0 }

    /// The overlap, or nil when there is none with an area.
    public func intersection(_ other: ScreenRect) -> ScreenRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return nil }
        return ScreenRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

public enum TreeWalk {
    /// What one read of an element gave: its frame, whether it clips its children (a scroll
    /// area), its children, and whatever the caller keeps to describe it.
    public struct Read<Node, Payload> {
        public let frame: ScreenRect?
        public let clipsChildren: Bool
        public let children: [Node]
        public let payload: Payload

        public init(frame: ScreenRect?, clipsChildren: Bool, children: [Node], payload: Payload) {
            self.frame = frame
            self.clipsChildren = clipsChildren
            self.children = children
            self.payload = payload
        }
    }

    /// A node of the answer: its depth, its frame when on screen, and the caller's payload.
    public struct Placed<Payload> {
        public let depth: Int
        public let frame: ScreenRect?
        public let payload: Payload
    }

    public struct Limits {
        public let maxNodes: Int
        public let maxDepth: Int

        public init(maxNodes: Int, maxDepth: Int) {
            self.maxNodes = maxNodes
            self.maxDepth = maxDepth
        }
    }

    private struct Pending<Node> {
        let node: Node
        let depth: Int
        /// What the ancestors leave visible; nil: no bound (only screens).
        let clip: ScreenRect?
        /// False inside the menu bar and a minimized window: nothing is left out there.
        let prune: Bool
    }

    /// The window's nodes in pre-order and whether a limit (or `expired`) left any out.
    /// `menuBar` is placed right after the window, at depth 1, before the window's children.
    /// `prune` false (a minimized or hidden window, whose `screens` the caller passes empty)
    /// keeps every node, without frames.
    public static func walk<Node, Payload>(
        window: Node, menuBar: Node?, screens: [ScreenRect], prune: Bool, limits: Limits,
        expired: () -> Bool = { false }, read: (Node) -> Read<Node, Payload>
    ) -> (placed: [Placed<Payload>], truncated: Bool) {
        var placed: [Placed<Payload>] = []
        var truncated = false
        var stack: [Pending<Node>] = [Pending(node: window, depth: 0, clip: nil, prune: false)]
        while let next = stack.popLast() {
            if expired() { return (placed, true) }
            let found = read(next.node)
            let visible = onScreen(found.frame, clip: next.clip, screens: screens)
            // Off screen, with all it holds: left out, as Linux leaves out what is not SHOWING.
            if next.prune && found.frame != nil && visible == nil { continue }
            if placed.count >= limits.maxNodes { return (placed, true) }
            placed.append(Placed(depth: next.depth, frame: visible == nil ? nil : found.frame, payload: found.payload))
            let clip = childClip(found.frame, clips: next.depth == 0 || found.clipsChildren, parent: next.clip)
            let childPrune = next.depth == 0 ? prune : next.prune
            var children = found.children.map { Pending(node: $0, depth: next.depth + 1, clip: clip, prune: childPrune) }
            if next.depth == 0, let bar = menuBar {
                children.insert(Pending(node: bar, depth: 1, clip: nil, prune: false), at: 0)
            }
            if children.isEmpty { continue }
            if next.depth >= limits.maxDepth {
                // Not read beyond the limit, so any child counts as left out.
                truncated = true
                continue
            }
            stack.append(contentsOf: children.reversed())
        }
        return (placed, truncated)
    }

    /// The visible part of `frame`: inside the ancestors' clip and on some screen; nil when
    /// there is none (or no frame).
    public static func onScreen(_ frame: ScreenRect?, clip: ScreenRect?, screens: [ScreenRect]) -> ScreenRect? {
        guard let frame = frame, frame.hasArea else { return nil }
        var inside = frame
        if let clip = clip {
            guard let overlap = frame.intersection(clip) else { return nil }
            inside = overlap
        }
        for screen in screens {
            if let shown = inside.intersection(screen) { return shown }
        }
        return nil
    }

    /// What a node leaves visible to its children: the window bounds everything below it and a
    /// scroll area narrows that further (`clips`); any other node, or one without a frame,
    /// passes its own clip on. No overlap at all leaves an empty clip: nothing below shows.
    static func childClip(_ frame: ScreenRect?, clips: Bool, parent: ScreenRect?) -> ScreenRect? {
        guard clips, let frame = frame else { return parent }
        guard let parent = parent else { return frame }
        return frame.intersection(parent) ?? ScreenRect(x: frame.x, y: frame.y, width: 0, height: 0)
    }
}
