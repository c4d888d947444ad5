// swift-tools-version:5.9
// The Deskbook macOS helper (docs/backend-protocol.md). DeskbookHelperCore imports only
// Foundation (and Darwin for the socket server), so `swift test` runs its tests on any machine
// with Swift; the socket files compile on Darwin only. See README.md for what exists so far.
import PackageDescription

let package = Package(
    name: "DeskbookHelper",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "DeskbookHelper", targets: ["DeskbookHelper"]),
        .library(name: "DeskbookHelperCore", targets: ["DeskbookHelperCore"]),
    ],
    targets: [
        .target(
            name: "DeskbookHelperCore",
            path: "Sources/DeskbookHelperCore"
        ),
        .executableTarget(
            name: "DeskbookHelper",
            dependencies: ["DeskbookHelperCore"],
            path: "Sources/DeskbookHelper"
        ),
        .testTarget(
            name: "DeskbookHelperCoreTests",
            dependencies: ["DeskbookHelperCore"],
            path: "Tests/DeskbookHelperCoreTests"
        ),
    ]
)
