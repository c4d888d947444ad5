// The wire types of the helper protocol (docs/backend-protocol.md), mirroring
// src/helper/protocol.ts. The method lists, the error codes and the wire constants
// (PROTOCOL_VERSION, MAX_LINE_BYTES) are generated from it into ProtocolTables.swift.
import Foundation

/// An error reply's body: what programs act on (`code`) and one sentence for a person.
public struct HelperError: Error, Equatable, Codable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { return "\(code.rawValue): \(message)" }

    var json: JSONValue {
        return .object(["code": .string(code.rawValue), "message": .string(message)])
    }
}

/// A request's id: an integer or a string. Kept as read so a reply echoes it exactly.
public enum RequestID: Equatable, Codable {
    case number(Double)
    case string(String)

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    /// The id of a parsed line, when it has one of the right kind (even if the rest is wrong).
    static func readable(from value: JSONValue) -> RequestID? {
        guard let id = value.objectValue?["id"] else { return nil }
        switch id {
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        default: return nil
        }
    }

    var json: JSONValue {
        switch self {
        case .number(let value): return .number(value)
        case .string(let value): return .string(value)
        }
    }
}

/// One request line, checked against the schema's `Request` envelope.
public struct Request: Equatable {
    public let id: RequestID
    public let method: String
    /// `{}` when the line left `params` out.
    public let params: [String: JSONValue]
    /// The notebook step that made the call, copied into actions.log.
    public let step: String?

    public init(id: RequestID, method: String, params: [String: JSONValue] = [:], step: String? = nil) {
        self.id = id
        self.method = method
        self.params = params
        self.step = step
    }

    /// The request, or the bad_request to answer: with the id when it could be read, else none.
    public static func from(_ value: JSONValue) -> Result<Request, EnvelopeError> {
        let readableID = RequestID.readable(from: value)
        func refuse(_ message: String) -> Result<Request, EnvelopeError> {
            return .failure(EnvelopeError(id: readableID, message: "request: \(message)"))
        }
        guard let fields = value.objectValue else { return refuse("must be an object") }
        guard let idValue = fields["id"] else { return refuse("missing `id`") }
        guard let method = fields["method"] else { return refuse("missing `method`") }
        let id: RequestID
        if let text = idValue.stringValue {
            id = .string(text)
        } else if let number = idValue.numberValue, number.isFinite, number.rounded() == number {
            id = .number(number)
        } else {
            return refuse("id must be an integer or a string")
        }
        guard let name = method.stringValue, !name.isEmpty else { return refuse("method must be a non-empty string") }
        var params: [String: JSONValue] = [:]
        if let given = fields["params"] {
            guard let object = given.objectValue else { return refuse("params must be an object") }
            params = object
        }
        var step: String?
        if let given = fields["step"] {
            guard let text = given.stringValue else { return refuse("step must be a string") }
            step = text
        }
        return .success(Request(id: id, method: name, params: params, step: step))
    }
}

/// Why a line is not a request, and the id to answer under (nil: `"id": null`).
public struct EnvelopeError: Error, Equatable {
    public let id: RequestID?
    public let message: String
}

/// A reply line: exactly one of `result` and `error`.
public enum Reply: Equatable {
    case result(id: RequestID, value: JSONValue)
    case error(id: RequestID?, error: HelperError)

    /// The JSON text, `id` first, without the newline.
    public var text: String {
        switch self {
        case .result(let id, let value):
            return JSONValue.objectText([("id", id.json), ("result", value)])
        case .error(let id, let error):
            let idValue: JSONValue = id.map { $0.json } ?? .null
            // Sorted keys put `code` before `message`, as the Linux helper writes them.
            return JSONValue.objectText([("id", idValue), ("error", error.json)])
        }
    }

    /// The line as sent: UTF-8 JSON and a newline.
    public var line: Data {
        return Data((text + "\n").utf8)
    }
}

/// An unsolicited line from the helper; it has no id. Clients ignore events they do not know.
public enum Event: Equatable {
    /// The user pressed Escape: `{"event":"escape"}`.
    case escape
    /// The user chose Stop Running Scripts in the helper's menu: `{"event":"stop","reason":"..."}`.
    case stop(reason: String)
    /// To the one connection whose call waits on the approval dialog: `state` is "pending" when
    /// it opens (with `timeoutS`), then "allowed" or "denied". On macOS the dialog is always on
    /// the user's own screen, so `screen` is "real".
    case approval(state: String, app: String, allow: String, timeoutS: Int?)

    public var name: String {
        switch self {
        case .escape: return "escape"
        case .stop: return "stop"
        case .approval: return "approval"
        }
    }

    /// The JSON text, `event` first, without the newline.
    public var text: String {
        switch self {
        case .escape:
            return JSONValue.objectText([("event", .string(name))])
        case .stop(let reason):
            return JSONValue.objectText([("event", .string(name)), ("reason", .string(reason))])
        case .approval(let state, let app, let allow, let timeoutS):
            var fields: [(String, JSONValue)] = [
                ("event", .string(name)), ("state", .string(state)), ("app", .string(app)),
                ("allow", .string(allow)), ("screen", .string("real")),
            ]
            if let timeoutS = timeoutS { fields.append(("timeoutS", .number(Double(timeoutS)))) }
            return JSONValue.objectText(fields)
        }
    }

    /// The line as sent: UTF-8 JSON and a newline.
    public var line: Data {
        return Data((text + "\n").utf8)
    }
}
