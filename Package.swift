// swift-tools-version: 6.1
import PackageDescription

/// A dependency wanted only when the trait of the same name is enabled.
let caldav = TargetDependencyCondition.when(traits: ["CalDAV"])
let postgres = TargetDependencyCondition.when(traits: ["PostgreSQL"])

let package = Package(
    name: "taskcal",
    defaultLocalization: "en",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "taskcal", targets: ["taskcal"]),
        .library(name: "Diary", targets: ["Diary"]),
        .library(name: "PostgresDiary", targets: ["PostgresDiary"]),
        .library(name: "CalDAV", targets: ["CalDAV"]),
        .library(name: "WebDAV", targets: ["WebDAV"]),
        .library(name: "TaskConversion", targets: ["TaskConversion"]),
        .library(name: "Reports", targets: ["Reports"]),
        .library(name: "TaskModel", targets: ["TaskModel"]),
        .library(name: "ICalendar", targets: ["ICalendar"]),
        // Table-driven libical look-ups for an executable that links it (see its header).
        .library(name: "LibicalLookups", targets: ["CLibicalLookups"]),
    ],
    // What reaches beyond this machine is a trait: without it, converting a file compiles no
    // TLS, HTTP or database client (the README's first command from a fresh clone: 42 s on
    // two cores, 226 s before). The module of a trait not enabled builds empty; its commands
    // say how to rebuild. Scripts/install.sh, Scripts/build-deb.sh, CI and the test command
    // enable both.
    traits: [
        .trait(
            name: "CalDAV",
            description:
                "taskcal caldav and diary sync: a CalDAV client over AsyncHTTPClient (SwiftNIO, TLS)."
        ),
        .trait(
            name: "PostgreSQL",
            description:
                "Diaries on a PostgreSQL server (postgres://…): PostgresNIO (SwiftNIO, TLS)."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.25.0"),
        // CalDAV: the HTTP client (the WebDAV XML is FoundationXML's).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        // `swift package generate-documentation`: the DocC archive of the library products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Debian's libical (apt: libical-dev). Only ICalendar imports it (CLibicalLookups, C,
        // builds against its headers).
        .systemLibrary(
            name: "CLibical",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),
        // The system's OpenSSL (apt: libssl-dev): AES-256-GCM and scrypt for private entries,
        // SHA-256 for the CalDAV sync. Not swift-crypto, whose Linux build compiles BoringSSL
        // (44 s of a first build here) for four functions every Debian machine has.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "SystemCrypto", dependencies: ["COpenSSL"]),
        // The taskcal executable's allocator, gperftools' tcmalloc (apt: libgoogle-perftools-dev).
        // A conversion is libical's parsing and printing and Swift's values, and allocates at
        // every step: with glibc's malloc, a sixth of its time went to malloc and free, on two
        // threads more (issue 13). Not jemalloc: it deadlocks at start under faketime.
        .systemLibrary(
            name: "CTCMalloc",
            pkgConfig: "libtcmalloc_minimal",
            providers: [.apt(["libgoogle-perftools-dev"])]
        ),
        // LeakSanitizer's switch, where the sanitizer is linked in (weak symbols, no library):
        // the executable parses its command line with leak reports off (TaskcalCommand.main).
        .systemLibrary(name: "CLeakSanitizer"),
        // libical's kind look-ups (a linear strcasecmp over its property table for every
        // content line) and its DATE-TIME reader (sscanf) answered from tables, for the
        // executables that link it: they define the functions under libical's names, and
        // libical's parser, calling through its PLT, reaches them. A fifth of reading a
        // calendar (issue 13). The library products alone leave libical as it is.
        .target(name: "CLibicalLookups", dependencies: ["CLibical"]),
        // Messages, help and reports in English and Russian: the catalogues are localized
        // resources (Resources/ru.lproj/Localizable.strings).
        .target(name: "Localization", resources: [.process("Resources")]),
        // A value behind a lock ThreadSanitizer sees (Swift's Mutex it does not, on Linux).
        .target(name: "Locking"),
        .target(name: "ICalendar", dependencies: ["CLibical", "Locking"]),
        .target(
            name: "TaskModel",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")]
        ),
        .target(name: "TaskConversion", dependencies: ["ICalendar", "Locking", "TaskModel"]),
        // Reports over records (overlaps, agenda, month, free time), for the command line
        // and the diary alike; plain text unless given a style.
        .target(
            name: "Reports",
            dependencies: ["Locking", "TaskConversion", "TaskModel", "Localization"]),
        .target(
            name: "Diary",
            dependencies: [
                "Locking", "SystemCrypto", "TaskConversion", "TaskModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API as GRDB links it: an add binds its values directly.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The team diary on a PostgreSQL server, apart so that the SQLite diary does not
        // bring SwiftNIO to the programs that use it.
        .target(
            name: "PostgresDiary",
            dependencies: [
                "Diary", "TaskConversion", "TaskModel",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "NIOCore", package: "swift-nio", condition: postgres),
                .product(name: "NIOPosix", package: "swift-nio", condition: postgres),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: postgres),
                .product(name: "Logging", package: "swift-log", condition: postgres),
            ]
        ),
        // What a WebDAV server answers, read as input like any other (FoundationXML only, no
        // trait: the reply fuzzer reaches it without the HTTP client).
        .target(name: "WebDAV"),
        // A CalDAV client (RFC 4791, 6578, 6764): discovery, push, pull, and the diary's
        // two-way sync, over AsyncHTTPClient.
        .target(
            name: "CalDAV",
            dependencies: [
                "Diary", "ICalendar", "Locking", "SystemCrypto", "TaskConversion", "TaskModel",
                "WebDAV",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: caldav),
                .product(name: "NIOCore", package: "swift-nio", condition: caldav),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: caldav),
            ]
        ),
        .executableTarget(
            name: "taskcal",
            dependencies: [
                "CTCMalloc",
                "CLeakSanitizer",
                "CLibicalLookups",
                "TaskConversion",
                "Reports",
                "Diary",
                "Locking",
                .target(name: "PostgresDiary", condition: postgres),
                .target(name: "CalDAV", condition: caldav),
                "Localization",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the two diary benchmarks measure alike (entries, refused adds, the clock).
        .target(
            name: "DiaryBenchmarkSupport", dependencies: ["Diary", "TaskModel"],
            path: "Benchmarks/DiaryBenchmarkSupport"
        ),
        .executableTarget(
            name: "diary-benchmark",
            dependencies: [
                "Diary", "DiaryBenchmarkSupport", "TaskModel",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/DiaryBenchmark"
        ),
        .executableTarget(
            name: "postgres-diary-benchmark",
            dependencies: [
                "Diary", "DiaryBenchmarkSupport", "TaskModel", "TestPostgres",
                .target(name: "PostgresDiary", condition: postgres),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "NIOPosix", package: "swift-nio", condition: postgres),
                .product(name: "Logging", package: "swift-log", condition: postgres),
            ],
            path: "Benchmarks/PostgresDiaryBenchmark"
        ),
        // The Python script is run by path from the source tree, not bundled.
        .testTarget(
            name: "ICalendarTests", dependencies: ["ICalendar", "CLibicalLookups"],
            exclude: ["Fixtures/zone_offsets.py"]
        ),
        .testTarget(
            name: "TaskModelTests",
            dependencies: [
                "TaskModel", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "TaskConversionTests",
            dependencies: [
                "TaskConversion",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "LocalizationTests", dependencies: ["Localization"]),
        .testTarget(name: "WebDAVTests", dependencies: ["WebDAV"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ReportsTests",
            dependencies: [
                "Reports", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // A throw-away PostgreSQL cluster for the tests (Debian's server, started on demand).
        .target(name: "TestPostgres", path: "Tests/TestPostgres"),
        .testTarget(
            name: "DiaryTests",
            dependencies: [
                "Diary", "TaskModel", "TestPostgres", "SystemCrypto",
                .target(name: "PostgresDiary", condition: postgres),
                // To read the columns an add stored, apart from the diary's own reading.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Locking", "TaskModel", "TestPostgres"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// CI's asan stage (Scripts/sanitizers.sh with SANITIZE_IN, which sets TASKCAL_SANITIZE_OWN):
// taskcal's own Swift code compiled again with the sanitizer, in the folder the tests were
// built in, and the dependencies left as they were built. `-Xswiftc -sanitize=…` recompiled
// every Swift module, SwiftNIO's and PostgresNIO's among them; where a memory error in
// taskcal would come from is its own code. Every executable and test product links the
// sanitizer's runtime. The whole build instrumented is the deep check's.
if let sanitizer = Context.environment["TASKCAL_SANITIZE_OWN"] {
    let flags = ["-sanitize=\(sanitizer)"]
    for target in package.targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(flags)]
        if target.type == .executable || target.type == .test {
            target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(flags)]
        }
    }
}
