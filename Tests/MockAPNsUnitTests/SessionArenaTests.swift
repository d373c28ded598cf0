import CNghttp2
import Testing

/// The nghttp2 sessions' allocator (`ringside_arena`, CNghttp2's shim): a freed block is handed out
/// again for the next request of its size class, contents survive `realloc` within a class and
/// across classes and large blocks, `calloc` zeroes and refuses a size that overflows, and the free
/// lists are empty once released. A realloc that moved a block it could keep, or lost its bytes,
/// fails here; every HTTP/2 test and the http2 fuzzer use it through nghttp2.
@Suite struct SessionArenaTests {
    @Test func blocksAreReusedAndKeepTheirContents() {
        let arena = UnsafeMutablePointer<ringside_arena>.allocate(capacity: 1)
        arena.initialize(to: ringside_arena())
        defer { arena.deallocate() }
        let user = UnsafeMutableRawPointer(arena)
        func bytes(_ block: UnsafeMutableRawPointer, _ count: Int) -> [UInt8] {
            Array(UnsafeRawBufferPointer(start: block, count: count))
        }

        let first = ringside_arena_malloc(100, user)!
        first.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 100)
        ringside_arena_free(first, user)
        // 97 and 100 bytes are one class (7 × 16): the freed block comes back.
        let reused = ringside_arena_malloc(97, user)!
        #expect(reused == first)
        let fresh = ringside_arena_malloc(100, user)!
        #expect(fresh != reused)

        reused.initializeMemory(as: UInt8.self, repeating: 7, count: 97)
        #expect(ringside_arena_realloc(reused, 112, user) == reused, "a size within the class keeps the block")
        let large = ringside_arena_realloc(reused, 5000, user)!
        #expect(large != reused)
        #expect(bytes(large, 97) == [UInt8](repeating: 7, count: 97))
        let small = ringside_arena_realloc(large, 40, user)!
        #expect(bytes(small, 40) == [UInt8](repeating: 7, count: 40))

        let zeroed = ringside_arena_calloc(10, 30, user)!
        #expect(bytes(zeroed, 300) == [UInt8](repeating: 0, count: 300))
        #expect(ringside_arena_calloc(Int.max, 16, user) == nil)
        #expect(ringside_arena_malloc(-1, user) == nil)  // SIZE_MAX

        for block in [fresh, small, zeroed] { ringside_arena_free(block, user) }
        #expect(arena.pointee.kept == 128 + 128 + 64 + 320)  // with each block's 16-byte header
        ringside_arena_release(arena)
        let lists = withUnsafeBytes(of: arena.pointee.free_lists) { Array($0) }
        #expect(lists.allSatisfy { $0 == 0 } && arena.pointee.kept == 0)
    }

    /// The free lists keep at most RINGSIDE_ARENA_KEPT bytes, or the arena's own `limit` (a
    /// provider's connection): past that, freed blocks go back to malloc, and a block handed out
    /// again is no longer counted.
    @Test(arguments: [0, 2 << 20]) func theFreeListsAreBounded(limit: Int) {
        let arena = UnsafeMutablePointer<ringside_arena>.allocate(capacity: 1)
        var empty = ringside_arena()
        empty.limit = limit
        arena.initialize(to: empty)
        defer { arena.deallocate() }
        let user = UnsafeMutableRawPointer(arena)
        let blocks = (0..<5000).map { _ in ringside_arena_malloc(1024, user)! }
        for block in blocks { ringside_arena_free(block, user) }
        // Whole blocks of 1024 bytes and a header.
        let bound = (limit == 0 ? Int(RINGSIDE_ARENA_KEPT) : limit) / 1040 * 1040
        #expect(arena.pointee.kept == bound)
        let again = ringside_arena_malloc(1024, user)!
        #expect(arena.pointee.kept == bound - 1040)
        ringside_arena_free(again, user)
        ringside_arena_release(arena)
    }

    /// Trimming frees blocks until the lists keep at most the bytes asked, and counts what they
    /// still hold: the blocks left on the lists add up to `kept`.
    @Test(arguments: [0, 5000, 40_000]) func trimmingKeepsAtMost(bytes: Int) {
        let arena = UnsafeMutablePointer<ringside_arena>.allocate(capacity: 1)
        arena.initialize(to: ringside_arena())
        defer { arena.deallocate() }
        let user = UnsafeMutableRawPointer(arena)
        let blocks = (0..<300).map { index in ringside_arena_malloc(16 * (1 + index % 40), user)! }
        for block in blocks { ringside_arena_free(block, user) }
        let before = arena.pointee.kept
        ringside_arena_trim(arena, bytes)
        var listed = 0
        withUnsafeBytes(of: arena.pointee.free_lists) { lists in
            for index in 0..<Int(RINGSIDE_ARENA_CLASSES) {
                var block = lists.load(fromByteOffset: index * 8, as: UnsafeMutableRawPointer?.self)
                while let next = block {
                    listed += (index + 2) * 16
                    block = next.load(as: UnsafeMutableRawPointer?.self)
                }
            }
        }
        #expect(arena.pointee.kept <= bytes && arena.pointee.kept == listed, "kept \(arena.pointee.kept) of \(before)")
        #expect(arena.pointee.kept > min(bytes, before) - 41 * 16, "trimmed no more than a block past the bound")
        ringside_arena_release(arena)
    }
}
