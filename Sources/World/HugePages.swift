#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks the kernel to back the 2 MB-aligned part of `bytes` bytes at `start` with huge pages
/// (transparent huge pages on request: this machine's kernel is in `madvise` mode). A million
/// phones span some 300 MB and their token table 32 MB; with 4 KB pages a push's token check
/// missed the TLB as well as the cache, for the table and again for the phone. Memory not yet
/// touched gets huge pages at its first fault; memory already touched is collapsed by the kernel
/// when it gets to it. Advice only: where the kernel says no, nothing changes.
func adviseHugePages(_ start: UnsafeRawPointer?, bytes: Int) {
    let huge = 2 << 20
    guard let start, bytes >= huge else { return }
    let begin = (Int(bitPattern: start) + huge - 1) & ~(huge - 1)
    let end = (Int(bitPattern: start) + bytes) & ~(huge - 1)
    guard end > begin, let aligned = UnsafeMutableRawPointer(bitPattern: begin) else { return }
    #if os(Linux)
        _ = madvise(aligned, end - begin, MADV_HUGEPAGE)
    #endif
}
