/// A value kept in one shared heap box and copied only when changed while shared (copy on write).
///
/// For values copied far more often than changed: a request and an accepted push go from the
/// connection to the validator, the world and the transcript, and copying a box is one retain where
/// copying the fields was one per string and array (callgrind, issue 12). Reads borrow the value in
/// place (`_read`): a getter would copy all of it to read one field.
/// Unchecked Sendable: the box is changed only through its sole reference.
@frozen public struct CopyOnWrite<Value: Sendable>: @unchecked Sendable {
    @usableFromInline final class Box {
        /// Unchecked: the box is reached only through this struct, whose own accesses Swift checks
        /// statically; the dynamic check cost about 1,000 instructions a push (callgrind).
        @exclusivity(unchecked) @usableFromInline var value: Value
        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    @inlinable public init(_ value: Value) { box = Box(value) }

    @inlinable public var value: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}
