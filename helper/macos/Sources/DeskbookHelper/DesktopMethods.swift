// The gated methods that act on an app as a whole rather than on one element or through input:
// `windowAction` (WindowActions.swift), `menu` (Menus.swift), `quit` and `hide`
// (AppLifecycle.swift), `paste` (Clipboard.swift), `readText` (TextRecognition.swift), `keyDown`/`keyUp` (InputHold.swift), and
// `launch`'s `args`; and the ungated
// clipboard methods, which pass config.json's `clipboard` grant instead of the app gate. MacDispatcher's `prepare`
// asks here for every method its own switch does not know; the params are checked the same way.
//
// NEVER COMPILED OR RUN (see README.md).
import ApplicationServices
import DeskbookHelperCore
import Foundation

extension MacDispatcher {
    /// The params and the work of a method served here, or nil for a method that is not.
    func desktopWork(_ method: String, _ values: [String: JSONValue]) throws -> (Params, (pid_t) throws -> JSONValue)? {
        switch method {
        case "windowAction":
            let params = try Params(method, values, allowed: ["pid", "windowId", "action", "x", "y", "width", "height"])
            guard let windowId = UInt32(exactly: try params.integer("windowId", minimum: 0, required: true) ?? 0) else {
                throw HelperError(.badRequest, "windowAction params: windowId is not a window id")
            }
            let action = try params.string("action", required: true) ?? ""
            guard ["focus", "move", "resize", "minimize", "close"].contains(action) else {
                throw HelperError(.badRequest, "windowAction params: action must be focus, move, resize, minimize or close")
            }
            let request = WindowActions.Request(
                windowId: windowId, action: action,
                x: try params.number("x", required: action == "move"), y: try params.number("y", required: action == "move"),
                width: try params.number("width", required: action == "resize"),
                height: try params.number("height", required: action == "resize"))
            if let width = request.width, width < 1 { throw HelperError(.badRequest, "windowAction params: width must be >= 1") }
            if let height = request.height, height < 1 { throw HelperError(.badRequest, "windowAction params: height must be >= 1") }
            let actions = WindowActions(accessibility: accessibility, windows: windows)
            return (params, { pid in try actions.perform(pid: pid, request) })
        case "menu":
            let params = try Params(method, values, allowed: ["pid", "path", "window"])
            _ = try params.integer("window", minimum: 0)
            guard let items = values["path"]?.arrayValue, (1...8).contains(items.count) else {
                throw HelperError(.badRequest, "menu params: path must hold 1 to 8 titles")
            }
            let path = try items.map { item -> String in
                guard let title = item.stringValue, !title.isEmpty, title.count <= 200 else {
                    throw HelperError(.badRequest, "menu params: each title of path must be a string of 1 to 200 characters")
                }
                return title
            }
            let menus = Menus(accessibility: accessibility)
            return (params, { pid in try menus.press(pid: pid, path: path) })
        case "quit":
            let params = try Params(method, values, allowed: ["pid", "force"])
            let force = try params.bool("force") ?? false
            return (params, { pid in try self.apps.quit(pid: pid, force: force) })
        case "paste":
            let params = try Params(method, values, allowed: ["pid", "text", "mode", "windowId", "windowLocation"])
            let text = try params.string("text", required: true) ?? ""
            let background = try params.string("mode") != nil
            return (params, { pid in
                try Clipboard.requireGrant("write")
                // Command-V goes to the frontmost app: no background route, so the client falls back.
                if background { throw HelperError(.backgroundUnavailable, "paste has no background route on macOS") }
                return try self.floor.holdInput {
                    try Input.requireForeground(pid: pid)
                    try Clipboard.paste(text) { try Input.keys([Chord(key: "v", mods: ["super"])]) }
                    return Input.foregroundResult
                }
            })
        case "readText":
            // scale, binarize, removeLines, layout and chars prepare the image for tesseract; Vision prepares its own and ignores them.
            let params = try Params(method, values, allowed: ["pid", "windowId", "width", "height", "region", "scale", "binarize", "removeLines", "layout", "chars"])
            let windowId = try params.integer("windowId", minimum: 0, required: true) ?? 0
            let width = try params.integer("width", minimum: 1, required: true) ?? 1
            let height = try params.integer("height", minimum: 1, required: true) ?? 1
            if width > 16384 || height > 16384 { throw HelperError(.badRequest, "readText params: width and height must be <= 16384") }
            var region: [Int]?
            if let items = values["region"] {
                guard let list = items.arrayValue, list.count == 4,
                      case let numbers = list.compactMap({ $0.safeIntegerValue }), numbers.count == 4,
                      numbers[0] >= 0, numbers[1] >= 0, numbers[2] >= 1, numbers[3] >= 1,
                      numbers[0] + numbers[2] <= width, numbers[1] + numbers[3] <= height else {
                    throw HelperError(.badRequest, "readText params: region must be [x, y, width, height] inside the image")
                }
                region = numbers
            }
            return (params, { pid in try TextRecognition.read(pid: pid, windowId: windowId, width: width, height: height, region: region) })
        case "keyDown", "keyUp":
            let params = try Params(method, values, allowed: ["pid", "key", "mode", "windowId", "windowLocation"])
            let key = try params.string("key", minLength: 1, required: true) ?? ""
            let background = try params.string("mode") != nil
            let down = method == "keyDown"
            return (params, { pid in
                if background { throw HelperError(.backgroundUnavailable, "\(method) has no background route on macOS") }
                return try self.floor.holdInput {
                    // A key held down must come up wherever the focus went meanwhile.
                    if down { try Input.requireForeground(pid: pid) }
                    try Input.hold(key, down: down)
                    return Input.foregroundResult
                }
            })
        case "hide":
            let params = try Params(method, values, allowed: ["pid"])
            return (params, { pid in try self.apps.hide(pid: pid) })
        default:
            return nil
        }
    }

    /// clipboardRead and clipboardWrite: no app to gate, so the grant is checked and the call
    /// logged (the text's length only) here. nil for any other method.
    func clipboardCall(_ request: Request, session: Session) throws -> JSONValue? {
        let method = request.method
        let length: Int
        let result: JSONValue
        switch method {
        case "clipboardRead":
            _ = try Params(method, request.params, allowed: [])
            try Clipboard.requireGrant("read")
            let text = Clipboard.read()
            length = text.utf16.count
            result = .object(["text": .string(text)])
        case "clipboardWrite":
            let params = try Params(method, request.params, allowed: ["text"])
            let text = try params.string("text", required: true) ?? ""
            try Clipboard.requireGrant("write")
            try Clipboard.write(text)
            length = text.utf16.count
            result = .object([:])
        default:
            return nil
        }
        let record = ActionLog.Record(client: session.client ?? "", step: request.step, app: "(clipboard)", pid: nil,
                                      action: method, params: ["length": .number(Double(length))], route: nil, refused: nil)
        if let config = try? DeskbookConfig.load(home: HelperPaths.home()).config {
            try? ActionLog.append(home: HelperPaths.home(), log: config.log, record: record)
        }
        return result
    }

    /// runScript: ScriptPolicy's refusals, then for each app the script names its grant tier and
    /// the gate, then osascript. Logged like every action: once osascript ran (a script that
    /// failed may have acted first), and with `refused` when the helper refused it.
    /// nil for any other method.
    func scriptCall(_ request: Request, session: Session) throws -> JSONValue? {
        guard request.method == "runScript" else { return nil }
        let params = try Params(request.method, request.params, allowed: ["language", "source"])
        let language = try params.string("language", required: true) ?? ""
        guard language == "applescript" || language == "jxa" else {
            throw HelperError(.badRequest, "runScript params: language must be \"applescript\" or \"jxa\"")
        }
        let source = try params.string("source", minLength: 1, required: true) ?? ""
        let config = try currentConfig()
        var named: [String] = []
        do {
            try ScriptPolicy.check(source)
            for name in ScriptPolicy.namedApps(source) {
                let target = try apps.resolve(name)
                named.append(target.name)
                let grant = Grant.appGrant(config, app: target.policyApp).grant
                if let refusal = Grant.tierRefusal(grant, method: request.method, params: request.params, who: target.name) {
                    throw HelperError(.notGranted, refusal)
                }
                try approvals.admit(target.policyApp, detail: ApprovalDialog.detail(for: target), session: session)
            }
        } catch let error as HelperError {
            if MacDispatcher.refusals.contains(error.code) {
                logUnnamed(request, session: session, app: scriptApps(named), config: config, refused: error.code)
            }
            throw error
        }
        defer { logUnnamed(request, session: session, app: scriptApps(named), config: config) }
        return .object(["output": .string(try Scripting.run(language: language, source: source))])
    }

    /// The log's `app` for a script: the apps it names, else "(script)".
    private func scriptApps(_ names: [String]) -> String {
        return names.isEmpty ? "(script)" : names.joined(separator: ", ")
    }

    /// `launch`'s `args`: nil when absent, else at most 256 strings.
    func launchArguments(_ value: JSONValue?) throws -> [String]? {
        guard let value = value else { return nil }
        guard let list = value.arrayValue, list.count <= 256 else {
            throw HelperError(.badRequest, "launch params: args must be an array of at most 256 strings")
        }
        return try list.map { item in
            guard let text = item.stringValue, text.utf16.count <= 65536 else {
                throw HelperError(.badRequest, "launch params: each of args must be a string of at most 65536 characters")
            }
            return text
        }
    }
}
