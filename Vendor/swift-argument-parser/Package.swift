// swift-tools-version:6.0
// swift-argument-parser 1.8.2 (https://github.com/apple/swift-argument-parser, revision
// 436bde4bb9489201ca6662f5cf94ec45fa8e244e), its two library targets only, with one change:
// see PATCHES.md. Everything else is upstream's, under upstream's license (LICENSE.txt).
import PackageDescription

let package = Package(
    name: "swift-argument-parser",
    products: [
        .library(name: "ArgumentParser", targets: ["ArgumentParser"]),
    ],
    targets: [
        // Upstream's own deprecation warnings are upstream's to fix.
        .target(name: "ArgumentParser", dependencies: ["ArgumentParserToolInfo"],
                swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .target(name: "ArgumentParserToolInfo"),
    ]
)
