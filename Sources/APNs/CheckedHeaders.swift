/// What the header checks learnt of a block, for a connection that receives the same block again
/// (MockAPNs' HeaderBlockMemo holds it): a memo beside the rules, not one of them.
extension Validator {
    /// What the checks that read only the header block (`Check.readsOnlyHeaders`) learnt from a
    /// block that passed every check. A connection that receives the same block again (HPACK makes
    /// that the common case) passes it back, and only the other checks run: those read the clock,
    /// the body, the connection's provider-token state or the world.
    public struct CheckedHeaders: Sendable {
        var state: State
        /// The push the last request with this block became: the next one that learns the same is
        /// the same push, shared (no box of its own, nothing of its own for the transcript to free).
        var accepted: AcceptedPush?
        /// Fields revised since the block passed: the header checks that read them run again, until
        /// a request passes them.
        var revisedId = false
        var revisedPath = false

        /// The block is the one that passed but for `field` (`PushRequest.revise`).
        public mutating func revised(_ field: PushRequest.RevisableField) {
            switch field {
            case .apnsId: revisedId = true
            case .path: revisedPath = true
            }
        }

        /// Whether `check`, which reads only the header block, is settled for this block.
        func settles(_ check: Check) -> Bool {
            switch check {
            case .messageId: !revisedId
            case .path, .deviceToken: !revisedPath
            default: true
            }
        }
    }
}
