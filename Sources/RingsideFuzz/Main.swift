import Foundation

/// `RingsideFuzz <target> …`. Built with `bash scripts/fuzz.sh` (coverage and AddressSanitizer, with
/// libFuzzer's driver): the rest of the arguments are libFuzzer's. Built plainly: each further argument
/// is a file or a folder of inputs, run once each — the crash regressions in `Fuzz/corpus/`.
@main struct Main {
    static func main() {
        var arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = Target(rawValue: arguments[1]) else {
            let names = Target.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: RingsideFuzz \(names) [libFuzzer options | inputs]\n".utf8))
            exit(64)
        }
        arguments.remove(at: 1)
        selected = target
        #if FUZZING
            var argc = CInt(arguments.count)
            var storage = arguments.map { strdup($0) }
            storage.append(nil)
            exit(
                storage.withUnsafeMutableBufferPointer { buffer -> CInt in
                    var argv = buffer.baseAddress!
                    return runDriver(&argc, &argv) { data, count in
                        Main.selected.run(UnsafeRawBufferPointer(start: data, count: count))
                        return 0
                    }
                })
        #else
            var count = 0
            for path in arguments.dropFirst() {
                let files =
                    (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted().map { path + "/" + $0 } ?? [
                        path
                    ]
                for file in files {
                    guard let data = FileManager.default.contents(atPath: file) else { continue }
                    data.withUnsafeBytes { target.run($0) }
                    count += 1
                }
            }
            print("\(target.rawValue): \(count) inputs, none crashed")
        #endif
    }

    nonisolated(unsafe) static var selected = Target.http2
}

#if FUZZING
    /// libFuzzer's entry for programs with their own `main` (libclang_rt.fuzzer_no_main).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
