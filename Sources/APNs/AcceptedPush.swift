/// A push APNs accepted, with what the checks established about it.
public struct AcceptedPush: Sendable {
    /// The fields, in one shared box (`CopyOnWrite`): an accepted push is copied from the validator
    /// to the world and into the push's record (callgrind counted four copies a push).
    private struct Fields {
        var deviceToken: String
        var topic: String
        var pushType: PushType?
        var priority: Priority
        var expiration: Int64?
        var collapseId: String?
        var keyId: String?
        var teamId: String?
        var isFirstValidToken: Bool
        var notes: [LintNote]
        var topicShape: PushType.TopicShape
    }

    private var fields: CopyOnWrite<Fields>

    public var deviceToken: String {
        get { fields.value.deviceToken }
        set { fields.value.deviceToken = newValue }
    }
    public var topic: String {
        get { fields.value.topic }
        set {
            fields.value.topic = newValue
            fields.value.topicShape = PushType.TopicShape(of: newValue)
        }
    }
    /// The topic's bundle id length and suffix, worked out with the topic.
    public var topicShape: PushType.TopicShape { fields.value.topicShape }
    public var pushType: PushType? {
        get { fields.value.pushType }
        set { fields.value.pushType = newValue }
    }
    public var priority: Priority {
        get { fields.value.priority }
        set { fields.value.priority = newValue }
    }
    /// Seconds since 1970; 0 means "deliver once, do not store"; nil means the default storage (30 days).
    public var expiration: Int64? {
        get { fields.value.expiration }
        set { fields.value.expiration = newValue }
    }
    public var collapseId: String? {
        get { fields.value.collapseId }
        set { fields.value.collapseId = newValue }
    }
    /// The JWT's key and team, under token authentication.
    public var keyId: String? {
        get { fields.value.keyId }
        set { fields.value.keyId = newValue }
    }
    public var teamId: String? {
        get { fields.value.teamId }
        set { fields.value.teamId = newValue }
    }
    /// True when this was the connection's first valid JWT: APNs then raises MAX_CONCURRENT_STREAMS.
    public var isFirstValidToken: Bool {
        get { fields.value.isFirstValidToken }
        set { fields.value.isFirstValidToken = newValue }
    }
    /// Under `voip-lint`: the undocumented encodings of a JWT this request verified.
    public var notes: [LintNote] {
        get { fields.value.notes }
        set { fields.value.notes = newValue }
    }

    /// Whether this push is what the checks learnt, field for field, and carries no notes.
    func learnt(_ state: borrowing Validator.State, collapseId: String?) -> Bool {
        // Field by field through the box: a copy of the fields would retain every string.
        fields.value.notes.isEmpty && fields.value.deviceToken == (state.token ?? "")
            && fields.value.topic == (state.topic ?? "") && fields.value.pushType == state.pushType
            && fields.value.priority == state.priority && fields.value.expiration == state.expiration
            && fields.value.collapseId == collapseId && fields.value.keyId == state.keyId
            && fields.value.teamId == state.teamId && fields.value.isFirstValidToken == state.isFirstValidToken
    }

    public init(
        deviceToken: String, topic: String, pushType: PushType?, priority: Priority, expiration: Int64?,
        collapseId: String?, keyId: String?, teamId: String?, isFirstValidToken: Bool, notes: [LintNote] = []
    ) {
        fields = CopyOnWrite(
            Fields(
                deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
                collapseId: collapseId, keyId: keyId, teamId: teamId, isFirstValidToken: isFirstValidToken,
                notes: notes,
                topicShape: PushType.TopicShape(of: topic)))
    }
}
