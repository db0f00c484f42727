// swift-tools-version:6.0
// swift-argument-parser 1.8.2 (https://github.com/apple/swift-argument-parser, revision
// 436bde4bb9489201ca6662f5cf94ec45fa8e244e): its two library targets, with the changes
// PATCHES.md lists, and upstream's tests of them (`swift test --package-path
// Vendor/swift-argument-parser`, run by Scripts/test). Everything else is upstream's, under
// upstream's license (LICENSE.txt).
import PackageDescription

let package = Package(
    name: "swift-argument-parser",
    products: [
        .library(name: "ArgumentParser", targets: ["ArgumentParser"]),
    ],
    targets: [
        // Upstream's own deprecation warnings are upstream's to fix. Cross-module optimisation
        // (release builds) lets the console's commands specialise and inline the parser's
        // generic code: a property wrapper's value, a parsed value's decode (PATCHES.md).
        .target(name: "ArgumentParser", dependencies: ["ArgumentParserToolInfo"],
                swiftSettings: [.unsafeFlags(["-suppress-warnings"]),
                                .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]),
        .target(name: "ArgumentParserToolInfo"),

        // Upstream's tests, as upstream's Package.swift declares them. Left out: the example,
        // manual and DocC reference tests, which run upstream's example programs and tools
        // (not vendored; they test those programs, not the library).
        .target(name: "ArgumentParserTestHelpers", dependencies: ["ArgumentParser", "ArgumentParserToolInfo"],
                exclude: ["CMakeLists.txt"], swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .testTarget(name: "ArgumentParserEndToEndTests", dependencies: ["ArgumentParser", "ArgumentParserTestHelpers"],
                    exclude: ["CMakeLists.txt"], swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .testTarget(name: "ArgumentParserPackageManagerTests", dependencies: ["ArgumentParser", "ArgumentParserTestHelpers"],
                    exclude: ["CMakeLists.txt"], swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .testTarget(name: "ArgumentParserToolInfoTests", dependencies: ["ArgumentParserToolInfo"],
                    exclude: ["Examples"], swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .testTarget(name: "ArgumentParserUnitTests", dependencies: ["ArgumentParser", "ArgumentParserTestHelpers"],
                    exclude: ["CMakeLists.txt", "Snapshots"], swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
    ]
)
