// One method's params, checked the way the schema's closed objects are: an unknown field, a
// missing one or a value of the wrong kind is a bad_request naming the field, worded like the
// Linux helper's ("ping params: unknown field `bogus`"). This is a hand-written subset of
// src/helper/protocol.schema.json: each method handler states what it takes.
import Foundation

public struct Params {
    public let method: String
    public let values: [String: JSONValue]

    /// Refuses any field not in `allowed` (params are closed).
    public init(_ method: String, _ values: [String: JSONValue], allowed: Set<String>) throws {
        self.method = method
        self.values = values
        if let unknown = values.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw refusal("unknown field `\(unknown)`")
        }
    }

    /// A whole number, at least `minimum`; nil when absent and not `required`.
    public func integer(_ key: String, minimum: Int, required: Bool = false) throws -> Int? {
        guard let value = try present(key, required: required) else { return nil }
        guard let number = value.safeIntegerValue else { throw refusal("\(key) must be an integer") }
        guard number >= minimum else { throw refusal("\(key) must be >= \(minimum)") }
        return number
    }

    /// A number (any, as the schema's "number").
    public func number(_ key: String, required: Bool = false) throws -> Double? {
        guard let value = try present(key, required: required) else { return nil }
        guard let number = value.numberValue else { throw refusal("\(key) must be a number") }
        return number
    }

    /// A string of at least `minLength` characters.
    public func string(_ key: String, minLength: Int = 0, required: Bool = false) throws -> String? {
        guard let value = try present(key, required: required) else { return nil }
        guard let text = value.stringValue else { throw refusal("\(key) must be a string") }
        guard text.utf16.count >= minLength else {
            throw refusal("\(key) must NOT have fewer than \(minLength) characters")
        }
        return text
    }

    public func bool(_ key: String, required: Bool = false) throws -> Bool? {
        guard let value = try present(key, required: required) else { return nil }
        guard let flag = value.boolValue else { throw refusal("\(key) must be a boolean") }
        return flag
    }

    private func present(_ key: String, required: Bool) throws -> JSONValue? {
        if let value = values[key] { return value }
        if required { throw refusal("missing `\(key)`") }
        return nil
    }

    private func refusal(_ detail: String) -> HelperError {
        return HelperError(.badRequest, "\(method) params: \(detail)")
    }
}
