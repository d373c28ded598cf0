import APNs
import HTTP2Server

/// The last header block a connection received, what it said, and what the validator learnt from
/// it once it passed every check. HPACK makes a provider's blocks byte-identical push after push
/// (same device token, topic and JWT): such a block is read and judged once per connection, and a
/// block that differs only in fields a check can read again alone (`PushRequest.revise`: the
/// `apns-id`, the path) is revised, not read again. A memo only: `Validator` says the rules.
struct HeaderBlockMemo {
    private var last: (fields: HTTP2Request, request: PushRequest)?
    /// What the validator learnt of the block (nil: not yet), handed to `Validator.validate`.
    var checked: Validator.CheckedHeaders?

    /// What `http`'s header block says: the block before's when it is the same, revised when only
    /// revisable fields changed, else read anew (and nothing is known of it yet).
    mutating func request(for http: HTTP2Request) -> PushRequest {
        if last?.fields.hasSameFields(as: http) == true { return last!.request }
        if let revised = revised(http) { return revised }
        var request = PushRequest()
        http.forEachField { request.add(name: $0, value: $1) }
        var fields = http
        fields.body = []
        last = (fields, request)
        checked = nil
        return request
    }

    /// The request of the block before with the fields `http` changed, when each is one a
    /// check can read again alone (`PushRequest.revise`): the block is not read again in full, and
    /// what the validator learnt of it stays but for those checks. Nil: a new block.
    private mutating func revised(_ http: HTTP2Request) -> PushRequest? {
        // In place: a copy of `last` was a retain and a release of each of its strings.
        guard last != nil, var changed = last!.fields.valuesChanged(in: http) else { return nil }
        var request = last!.request
        var revisedId = false
        var revisedPath = false
        while changed != 0 {
            let index = changed.trailingZeroBitCount
            changed &= changed - 1
            var field: PushRequest.RevisableField?
            http.withField(index) { field = request.revise(name: $0, value: $1) }
            switch field {
            case .apnsId?: revisedId = true
            case .path?: revisedPath = true
            case nil: return nil
            }
        }
        if revisedId { checked?.revised(.apnsId) }
        if revisedPath { checked?.revised(.path) }
        last!.fields = http.withoutBody
        last!.request = request
        return request
    }
}
