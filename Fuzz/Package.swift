// swift-tools-version: 6.1
// Coverage-guided fuzz targets for taskcal (libFuzzer): one per entry point. Built and run by
// run.sh with -sanitize=fuzzer,address; never part of the main package's build.
import Foundation
import PackageDescription

// The main package is the folder above; SwiftPM names a path dependency after its folder, which
// differs between checkouts (`main`, `taskcal`, a CI clone's name).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let taskcal = root.lastPathComponent

let package = Package(
    name: "taskcal-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        // LibicalLookups: the fuzzed code reads through the table-driven libical look-ups, as
        // the taskcal executable does.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "TaskConversion", package: taskcal),
                .product(name: "LibicalLookups", package: taskcal),
            ]),
        .executableTarget(
            name: "FuzzICS",
            dependencies: ["FuzzSupport", .product(name: "TaskConversion", package: taskcal)]),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: ["FuzzSupport", .product(name: "TaskConversion", package: taskcal)]),
        .executableTarget(
            name: "FuzzExpand",
            dependencies: ["FuzzSupport", .product(name: "TaskConversion", package: taskcal)]),
        // The reports (overlaps, agenda, month, free time, statistics) over what a file says.
        .executableTarget(
            name: "FuzzReports",
            dependencies: [
                "FuzzSupport", .product(name: "TaskConversion", package: taskcal),
                .product(name: "Reports", package: taskcal),
            ]),
        // The WebDAV reply reader CalDAV reads every server answer with (no HTTP client: the
        // WebDAV module carries no trait).
        .executableTarget(
            name: "FuzzDAVReply",
            dependencies: ["FuzzSupport", .product(name: "WebDAV", package: taskcal)]),
        .executableTarget(
            name: "FuzzDiaryImport",
            dependencies: [
                "FuzzSupport", .product(name: "TaskConversion", package: taskcal),
                .product(name: "Diary", package: taskcal),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
