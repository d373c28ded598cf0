// swift-tools-version:6.0
// A tiny push provider and its tests against Ringside's fake APNs, in-process (RingsideTesting).
import PackageDescription

let package = Package(
    name: "CallNotifierExample",
    dependencies: [
        // In your project: .package(url: "<where your team keeps Ringside>", from: "0.9.0").
        .package(name: "Ringside", path: "../..")
    ],
    targets: [
        .target(name: "CallNotifier"),
        .testTarget(
            name: "CallNotifierTests",
            dependencies: ["CallNotifier", .product(name: "RingsideTesting", package: "Ringside")]),
    ],
    swiftLanguageModes: [.v6]
)
