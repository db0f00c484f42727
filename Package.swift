// swift-tools-version:6.0
import PackageDescription

// The shape of the house (see docs/architecture.md):
//   miadmin (exe) -> MILaunch (command line, opening, privilege, start-up threads)
//                    -> MIConsole (REPL, scripts, output) -> MICommands -> MIStore (SQLite via GRDB) -> MIPostgres (libpq)
//                                                                       \-> MIDirectory (LDAP via libldap)
//                                                                       \-> MIReport (PDF via cairo/pango) -> MIStore
//                                                                       \-> MIOutbound (HTTPS and SMTP via libcurl)
// MIFiles (files made for the user) and MIText (confusable skeletons) depend on nothing.
// The core modules (MIStore, MIDirectory) never print and never read the terminal.
let package = Package(
    name: "miadmin",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "miadmin", targets: ["miadmin"]),
    ],
    dependencies: [
        // swift-argument-parser 1.8.2 with five patches (a cache of argument definitions per
        // command type; no help-flag search in a line without options; option groups a line
        // does not use decoded once; initial values set once per command type; the parsed
        // command found from the end):
        // Vendor/swift-argument-parser/PATCHES.md says why and what.
        .package(path: "Vendor/swift-argument-parser"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // SHA-256 of media files (Foundation on Linux has no CryptoKit).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // OpenLDAP's libldap, wrapped once (module map + shim.h).
        .systemLibrary(name: "CLDAP", path: "Sources/CLDAP", pkgConfig: "ldap",
                       providers: [.apt(["libldap2-dev"])]),
        // GNU readline. No pkgConfig: readline.pc carries -D_XOPEN_SOURCE=600, which SwiftPM rejects.
        .systemLibrary(name: "CReadline", path: "Sources/CReadline",
                       providers: [.apt(["libreadline-dev"])]),
        // glibc's process controls that Swift cannot call (prctl is variadic), wrapped once.
        .systemLibrary(name: "CProcess", path: "Sources/CProcess"),
        // PostgreSQL's libpq, wrapped once, for the PostgreSQL store engine.
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        // cairo + pango: the PDF report's surface, text layout and font fallback, wrapped once.
        .systemLibrary(name: "CPangoCairo", path: "Sources/CPangoCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        // Opening a shared library on first use (dlopen) instead of at start-up, and the
        // trampolines that do it for libpq and for cairo + pango: most sessions use neither,
        // and loading them cost 14 ms of every start (CLazyLibrary/include/lazy_library.h).
        .target(name: "CLazyLibrary"),
        .target(name: "CPostgresLazy", dependencies: ["CPostgres", "CLazyLibrary"]),
        .target(name: "CPangoCairoLazy", dependencies: ["CPangoCairo", "CLazyLibrary"]),
        // readline too: only the prompt uses it (CReadlineLazy/include/readline_lazy.h).
        .target(name: "CReadlineLazy", dependencies: ["CReadline", "CLazyLibrary"]),
        // libcurl (OpenSSL flavour), wrapped once for deliver's HTTPS posts and remind's mail, and
        // opened on first use; CCurlLazy also gives its variadic calls one typed function each.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlLazy", dependencies: ["CCurl", "CLazyLibrary"]),
        // MIT Kerberos' GSSAPI (libkrb5-dev's headers), opened on the first Kerberos login or keytab
        // bind: a password login never loads it (CKerberosLazy/include/kerberos_lazy.h).
        .target(name: "CKerberosLazy", dependencies: ["CLazyLibrary"]),
        // Outbound traffic: HTTPS posts to the office and mail through SMTP, over
        // libcurl. Knows nothing of forms or the store; never prints.
        .target(name: "MIOutbound", dependencies: ["CCurl", "CCurlLazy"]),
        // Files the console creates and trees it reads on the user's behalf, by folder descriptor
        // (openat, O_EXCL | O_NOFOLLOW, renameat): no planted link or swap redirects them.
        .target(name: "MIFiles"),
        // Text as a person reads it: the confusable skeleton that tells look-alike user ids apart
        // and finds a secret word however it is spelled (the history filter).
        .target(name: "MIText"),
        .target(name: "MIDirectory", dependencies: [
            "CLDAP", "CKerberosLazy", "MIText",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The PostgreSQL client (libpq: connecting host by host, the pipeline, TLS, a pooler's
        // answers); it knows nothing of forms.
        .target(name: "MIPostgres", dependencies: ["CPostgres", "CPostgresLazy"]),
        .target(name: "MIStore", dependencies: [
            "CPostgres", "CPostgresLazy", "MIPostgres", "MIFiles",
            .product(name: "GRDB", package: "GRDB.swift"),
            // sqlite3_file_control (persistent WAL), which GRDB does not wrap.
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The printable review of a form (PDF through cairo and pango); never prints to a terminal.
        .target(name: "MIReport", dependencies: ["MIStore", "MIFiles", "CPangoCairo", "CPangoCairoLazy"]),
        .target(name: "MICommands", dependencies: [
            "MIDirectory", "MIStore", "MIPostgres", "MIReport", "MIFiles", "MIOutbound", "CProcess",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "MIConsole", dependencies: [
            "MICommands", "MIStore", "MIDirectory", "MIFiles", "MIText", "MIOutbound", "CReadline", "CReadlineLazy",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // How a console process starts: the command line (the one parser), what is opened when
        // and with which rights (privilege drop, environment scrub, heap tuning, the helper
        // threads that open the directory, the store and readline ahead of time).
        .target(name: "MILaunch", dependencies: [
            "MIConsole", "MICommands", "MIStore", "MIPostgres", "MIDirectory", "CProcess",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "miadmin", dependencies: ["MILaunch"]),
        // Shared by the test targets: the real slapd fixture and a runner for the built binary.
        .target(name: "MITestSupport", path: "Tests/MITestSupport"),
        .testTarget(name: "MIDirectoryTests", dependencies: [
            "MIDirectory", "MITestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MIStoreTests", dependencies: ["MIStore", "MIPostgres", "MITestSupport", "CLazyLibrary", .product(name: "GRDB", package: "GRDB.swift")]),
        // Fuzzing (docs/testing.md, Scripts/fuzz): the targets, their driver (libFuzzer's when built
        // with -sanitize=fuzzer -DFUZZING, a corpus replayer otherwise) and libFuzzer's entry point.
        .systemLibrary(name: "CLibFuzzer", path: "Tests/Fuzz/CLibFuzzer"),
        .target(name: "MIFuzzTargets", dependencies: [
            "MIStore", "MIDirectory", "MICommands", "MIConsole",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Tests/Fuzz/Targets"),
        .executableTarget(name: "miadmin-fuzz", dependencies: ["MIFuzzTargets", "CLibFuzzer"], path: "Tests/Fuzz/Driver"),
        // Every fuzz input that ever failed (Tests/Fuzz/regressions) and the seed corpora, replayed.
        .testTarget(name: "MIFuzzTests", dependencies: ["MIFuzzTargets"], path: "Tests/Fuzz/Tests"),
        // Unit tests of the console's and the commands' pure logic: tokenizer, completion engine,
        // renderers, command catalog (without slapd, tmux or the binary).
        .testTarget(name: "MIConsoleTests", dependencies: [
            "MIConsole", "MICommands", "MIStore", "MIDirectory", "MIOutbound",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The one helper for files made and trees read on the user's behalf.
        .testTarget(name: "MIFilesTests", dependencies: ["MIFiles"]),
        .testTarget(name: "MITextTests", dependencies: ["MIText"]),
        // Unit tests of the commands against fake directory and store services: the permission
        // matrix (every command x role), argument validation, output records. No server, no file.
        .testTarget(name: "MICommandsTests", dependencies: [
            "MICommands", "MIStore", "MIDirectory",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The launch layer's pure parts: the early connection's guess against the parsed command
        // line, the privileged run's refusals, the install layout.
        .testTarget(name: "MILaunchTests", dependencies: [
            "MILaunch", "MICommands", "MIDirectory", "MITestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "MIReportTests", dependencies: ["MIReport", "MIStore", "MITestSupport"]),
        // Depends on the executable so `swift test` builds the binary these tests run.
        .testTarget(name: "MIAdminEndToEndTests", dependencies: ["MIConsole", "MILaunch", "miadmin", "MITestSupport"]),
    ]
)
