// swift-tools-version: 6.1
import PackageDescription

// A program that uses taskcal's library products, as another package would: by path here,
// by URL and version elsewhere. CI builds and runs it.
let package = Package(
    name: "LibraryTour",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "taskcal", path: "../..")],
    targets: [
        .executableTarget(
            name: "LibraryTour",
            dependencies: [
                .product(name: "TaskModel", package: "taskcal"),
                .product(name: "TaskConversion", package: "taskcal"),
                .product(name: "Reports", package: "taskcal"),
                .product(name: "Diary", package: "taskcal"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
