/// The syntax tree of a scenario file: mappings, lists and scalars, each with where it stands.
public indirect enum Node: Sendable, Equatable {
    case scalar(Scalar)
    case mapping(Mapping)
    case sequence(Sequence)

    public var range: SourceRange {
        switch self {
        case .scalar(let scalar): return scalar.range
        case .mapping(let mapping): return mapping.range
        case .sequence(let sequence): return sequence.range
        }
    }

    public var kind: String {
        switch self {
        case .scalar: return "a value"
        case .mapping: return "a block of `key: value` lines"
        case .sequence: return "a list of `- ` items"
        }
    }
}

public struct Scalar: Sendable, Equatable {
    public var text: String
    public var range: SourceRange
}

public struct Mapping: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var keyRange: SourceRange
        public var value: Node
    }

    public var entries: [Entry]
    public var range: SourceRange

    public func value(_ key: String) -> Node? { entries.first { $0.key == key }?.value }
}

public struct Sequence: Sendable, Equatable {
    public var items: [Node]
    public var range: SourceRange
}
