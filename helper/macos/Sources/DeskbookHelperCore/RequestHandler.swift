// Lines in, reply lines out, as helper/linux/server.ts does for each connection: every line
// stands alone, a bad one gets a bad_request reply and never costs the connection, and calls
// run concurrently (replies are matched by id, so a slow screenshot never holds up a ping).
// Knows nothing of sockets, so it can be tested with plain strings.
import Foundation

public final class RequestHandler: @unchecked Sendable {
    /// The helper's own version, free text, as `hello` and `ping` answer it.
    public let version: String
    public let platform: String
    public let pid: Int
    private let dispatcher: Dispatcher
    private let callQueue: DispatchQueue
    /// Told when a connection says hello and when it closes (the menu bar, the idle quit).
    private let registry: SessionRegistry?

    public init(
        version: String,
        dispatcher: Dispatcher,
        platform: String = "darwin",
        pid: Int = Int(ProcessInfo.processInfo.processIdentifier),
        callQueue: DispatchQueue = DispatchQueue.global(qos: .userInitiated),
        registry: SessionRegistry? = nil
    ) {
        self.version = version
        self.dispatcher = dispatcher
        self.platform = platform
        self.pid = pid
        self.callQueue = callQueue
        self.registry = registry
    }

    /// The connection of `session` has closed (called once, by SocketConnection).
    public func closed(_ session: Session) {
        registry?.remove(session)
    }

    /// One item from a connection's LineSplitter. Call serially per connection, in arrival
    /// order: hello takes effect before the next line is looked at. `send` gets each reply line
    /// (newline included), possibly later and from another thread.
    public func handle(_ item: LineSplitter.Item, session: Session, send: @escaping (Data) -> Void) {
        switch item {
        case .tooLong:
            let error = HelperError(.badRequest, "a line is over the \(MAX_LINE_BYTES)-byte limit; it was skipped")
            send(Reply.error(id: nil, error: error).line)
        case .line(let text):
            handleLine(text, session: session, send: send)
        }
    }

    private func handleLine(_ text: String, session: Session, send: @escaping (Data) -> Void) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(text.utf8))
        } catch {
            let reason = JSONValue.describeParseError(error)
            send(Reply.error(id: nil, error: HelperError(.badRequest, "the line is not JSON (\(reason))")).line)
            return
        }
        let request: Request
        switch Request.from(value) {
        case .success(let parsed):
            request = parsed
        case .failure(let refusal):
            send(Reply.error(id: refusal.id, error: HelperError(.badRequest, refusal.message)).line)
            return
        }
        if request.method == "hello" {
            send(reply(to: request.id, hello(request.params, session: session)))
            return
        }
        if session.client == nil {
            send(Reply.error(id: request.id, error: HelperError(.badRequest, "send hello before \(request.method)")).line)
            return
        }
        if !METHOD_NAMES.contains(request.method) {
            send(Reply.error(id: request.id, error: HelperError(.badRequest, "unknown method \"\(request.method)\"")).line)
            return
        }
        let dispatcher = self.dispatcher
        callQueue.async { [self] in
            dispatcher.call(request, session: session) { result in
                send(self.reply(to: request.id, result))
            }
        }
    }

    private func hello(_ params: [String: JSONValue], session: Session) -> Result<JSONValue, HelperError> {
        do {
            let checked = try Params("hello", params, allowed: ["client", "protocol"])
            let client = try checked.string("client", minLength: 1, required: true) ?? ""
            let spoken = try checked.integer("protocol", minimum: 1, required: true) ?? 0
            if spoken != PROTOCOL_VERSION {
                return .failure(HelperError(.badRequest, "this helper speaks protocol \(PROTOCOL_VERSION); the client speaks protocol \(spoken)"))
            }
            session.setClient(client)
            registry?.add(session)
        } catch let error as HelperError {
            return .failure(error)
        } catch {
            return .failure(HelperError(.badRequest, String(describing: error)))
        }
        return .success(.object([
            "version": .string(version),
            "protocol": .number(Double(PROTOCOL_VERSION)),
            "platform": .string(platform),
            "pid": .number(Double(pid)),
        ]))
    }

    /// The reply line; a result too big for one line becomes a `failed` error instead, since
    /// the client drops a connection that sends it an over-long line.
    private func reply(to id: RequestID, _ result: Result<JSONValue, HelperError>) -> Data {
        switch result {
        case .success(let value):
            let line = Reply.result(id: id, value: value).line
            if line.count - 1 > MAX_LINE_BYTES {
                let error = HelperError(.failed, "the result is \(line.count - 1) bytes, over the \(MAX_LINE_BYTES)-byte line limit")
                return Reply.error(id: id, error: error).line
            }
            return line
        case .failure(let error):
            return Reply.error(id: id, error: error).line
        }
    }
}
