// A STUB, not the macOS helper. It answers only what needs no AppKit or other macOS framework:
// `ping`, `cursor` (no drawn cursor yet, as on Linux: always `{enabled: false}`) and `forget`
// (there is no element table yet). Every other method, gated or not, answers `failed`
// "not implemented on macOS yet", so a client sees at once that nothing was done. It never
// pretends: no app is listed, launched, read or driven. The real dispatcher (issue 5) adds the
// app catalog, the approval gate with its dialog, AX, input, screenshots and the action log.
import DeskbookHelperCore
import Foundation

final class StubDispatcher: Dispatcher {
    private let version: String
    private let pid: Int

    init(version: String, pid: Int = Int(ProcessInfo.processInfo.processIdentifier)) {
        self.version = version
        self.pid = pid
    }

    func call(_ request: Request, session: Session, reply: @escaping (Result<JSONValue, HelperError>) -> Void) {
        reply(serve(request))
    }

    private func serve(_ request: Request) -> Result<JSONValue, HelperError> {
        do {
            switch request.method {
            case "ping":
                _ = try Params("ping", request.params, allowed: [])
                // The stub loads none of the private functions background input needs.
                let background: [String: JSONValue] = [
                    "postEventRecord": .bool(false),
                    "postToPid": .bool(false),
                    "setWindowLocation": .bool(false),
                    "setIntegerField": .bool(false),
                    "processSerialNumber": .bool(false),
                ]
                return .success(.object([
                    "version": .string(version),
                    "platform": .string("darwin"),
                    "pid": .number(Double(pid)),
                    "background": .object(background),
                ]))
            case "cursor":
                let params = try Params("cursor", request.params, allowed: ["enabled", "hide", "x", "y", "windowId"])
                _ = try params.bool("enabled")
                _ = try params.bool("hide")
                _ = try params.number("x")
                _ = try params.number("y")
                _ = try params.integer("windowId", minimum: 0)
                return .success(.object(["enabled": .bool(false)]))
            case "forget":
                let params = try Params("forget", request.params, allowed: ["pid"])
                _ = try params.integer("pid", minimum: 1, required: true)
                return .success(.object([:]))
            default:
                return .failure(HelperError(.failed, "\(request.method) is not implemented on macOS yet: this helper is only the foundation (protocol server, policy, config, action log); see helper/macos/README.md"))
            }
        } catch let error as HelperError {
            return .failure(error)
        } catch {
            return .failure(HelperError(.failed, String(describing: error)))
        }
    }
}
