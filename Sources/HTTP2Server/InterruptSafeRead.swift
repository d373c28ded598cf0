import Foundation

/// Reads that survive a signal. Foundation's `readDataToEndOfFile()` and `availableData` end in
/// `try!`, so a signal caught while they block (EINTR) crashed the whole test process on CI (stop
/// 50); `readToEnd()` throws instead, and its `try?` lost a provider's output. These retry.
extension FileHandle {
    /// Everything until end of file.
    public func readAllRetryingInterrupts() -> Data {
        var data = Data()
        while true {
            let chunk = readSomeRetryingInterrupts()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What one `read` returns (empty at end of file or on an error other than EINTR).
    public func readSomeRetryingInterrupts(upTo count: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let got = buffer.withUnsafeMutableBytes { bytes in
                #if os(Linux)
                    Glibc.read(fileDescriptor, bytes.baseAddress, count)
                #else
                    Darwin.read(fileDescriptor, bytes.baseAddress, count)
                #endif
            }
            if got >= 0 { return Data(buffer[0..<got]) }
            if errno != EINTR { return Data() }
        }
    }
}
