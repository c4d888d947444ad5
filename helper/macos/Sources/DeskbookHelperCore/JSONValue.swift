// Any JSON value: what a request line or config.json holds. Decoded through Codable, so a
// boolean stays a boolean and a number a number (JSONSerialization's NSNumber would let `1`
// pass for `true`). Written back by hand, in the exact text JSON.stringify gives, so the
// macOS helper's replies and actions.log lines read like the Linux helper's.
import Foundation

public enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// JSON has one number type, and so does JavaScript: integers are doubles that happen to be whole.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Key order is not kept (Foundation's decoders do not keep it); objects are written with sorted keys.
    case object([String: JSONValue])
}

extension JSONValue: Decodable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }
}

extension JSONValue {
    /// Parses one JSON text (a whole line, or a whole file).
    public static func parse(_ data: Data) throws -> JSONValue {
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// A readable reason for a parse failure: Foundation's own sentence when it gave one.
    public static func describeParseError(_ error: Error) -> String {
        if let decoding = error as? DecodingError, case .dataCorrupted(let context) = decoding {
            if let underlying = context.underlyingError {
                let detail = (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                if let detail = detail { return detail }
            }
            return context.debugDescription
        }
        return String(describing: error)
    }

    // MARK: Reading

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A whole number within JavaScript's safe integer range (Number.isSafeInteger), as Int.
    public var safeIntegerValue: Int? {
        guard case .number(let value) = self, value.isFinite, value.rounded() == value,
              abs(value) <= JSONValue.maxSafeInteger else { return nil }
        return Int(value)
    }

    /// Number.MAX_SAFE_INTEGER, 2^53 - 1.
    public static let maxSafeInteger: Double = 9_007_199_254_740_991

    // MARK: Writing

    /// The value as JSON.stringify writes it (objects with sorted keys).
    public var jsonText: String {
        switch self {
        case .null:
            return "null"
        case .bool(let value):
            return value ? "true" : "false"
        case .number(let value):
            return JSONValue.numberText(value)
        case .string(let value):
            return JSONValue.stringText(value)
        case .array(let values):
            return "[" + values.map { $0.jsonText }.joined(separator: ",") + "]"
        case .object(let fields):
            let sorted = fields.keys.sorted().map { key -> (String, JSONValue) in
                return (key, fields[key] ?? .null)
            }
            return JSONValue.objectText(sorted)
        }
    }

    /// An object with its fields in the order given: replies put `id` first, log lines `ts`.
    public static func objectText(_ fields: [(String, JSONValue)]) -> String {
        let members = fields.map { field in stringText(field.0) + ":" + field.1.jsonText }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A string literal as JSON.stringify writes it: quote, backslash and control characters
    /// escaped, everything else (slashes, non-ASCII) as is.
    public static func stringText(_ value: String) -> String {
        let needsEscape = value.utf8.contains { byte in byte < 0x20 || byte == 0x22 || byte == 0x5C }
        if !needsEscape {
            return "\"" + value + "\""
        }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x00..<0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }

    /// A number as JavaScript prints it (Number.prototype.toString): whole numbers up to 2^53
    /// as integers; otherwise the shortest digits that read back the same, in fixed notation
    /// from 1e-6 up to 1e21 and as `1.5e-7` / `1e+21` beyond.
    public static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" } // as JSON.stringify does for NaN and Infinity
        if value == 0 { return "0" } // -0 too
        if value.rounded() == value && abs(value) <= maxSafeInteger { return String(Int64(value)) }
        // Swift's description has the same shortest digits as JavaScript; only the notation
        // differs (Swift uses an exponent below 1e-4 and from 2^53 up, and writes e-07).
        let text = value.description
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else {
            // Fixed notation; from 2^53 to 2^54 Swift writes whole numbers with ".0".
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
        var mantissa = String(text[text.startIndex..<e])
        guard let exponent = Int(String(text[text.index(after: e)...])) else { return text }
        if mantissa.contains(".") {
            while mantissa.hasSuffix("0") { mantissa.removeLast() }
            if mantissa.hasSuffix(".") { mantissa.removeLast() }
        }
        if exponent >= 21 || exponent < -6 {
            return mantissa + "e" + (exponent < 0 ? "-" : "+") + String(abs(exponent))
        }
        let sign = mantissa.hasPrefix("-") ? "-" : ""
        let digits = Array(mantissa.filter { $0 != "-" && $0 != "." })
        if exponent < 0 {
            return sign + "0." + String(repeating: "0", count: -exponent - 1) + String(digits)
        }
        let integerDigits = exponent + 1
        if digits.count <= integerDigits {
            return sign + String(digits) + String(repeating: "0", count: integerDigits - digits.count)
        }
        return sign + String(digits[0..<integerDigits]) + "." + String(digits[integerDigits...])
    }

    /// What a message calls a wrong value, as src/config/config.ts's describe() does.
    public var described: String {
        switch self {
        case .null:
            return "null"
        case .array:
            return "an array (\(JSONValue.truncated(jsonText)))"
        case .object:
            return "an object"
        case .string:
            return "the string \(JSONValue.truncated(jsonText))"
        case .number(let value):
            return "number \(JSONValue.numberText(value))"
        case .bool(let value):
            return "boolean \(value)"
        }
    }

    private static func truncated(_ text: String) -> String {
        guard text.count > 60 else { return text }
        return String(text.prefix(57)) + "..."
    }
}
