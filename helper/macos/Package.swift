// swift-tools-version:5.9
// The Deskbook macOS helper (docs/backend-protocol.md). DeskbookHelperCore imports only
// Foundation (and Darwin for the socket server), so `swift test` runs its tests on any machine
// with Swift; the socket files compile on Darwin only. See README.md for what exists so far.
import PackageDescription

var products: [Product] = [
    .library(name: "DeskbookHelperCore", targets: ["DeskbookHelperCore"]),
]
var targets: [Target] = [
    .target(
        name: "DeskbookHelperCore",
        path: "Sources/DeskbookHelperCore"
    ),
    .testTarget(
        name: "DeskbookHelperCoreTests",
        dependencies: ["DeskbookHelperCore"],
        path: "Tests/DeskbookHelperCoreTests"
    ),
]

// The executable needs AppKit. `swift test` builds every target of the package, not only what
// the tests use, so elsewhere the executable is left out of the package altogether.
#if os(macOS)
products.insert(.executable(name: "DeskbookHelper", targets: ["DeskbookHelper"]), at: 0)
targets.append(
    .executableTarget(
        name: "DeskbookHelper",
        dependencies: ["DeskbookHelperCore"],
        path: "Sources/DeskbookHelper"
    )
)
#endif

let package = Package(
    name: "DeskbookHelper",
    platforms: [.macOS(.v13)],
    products: products,
    targets: targets
)
