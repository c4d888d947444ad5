// The macOS method server, in the order helper/linux/dispatch.ts uses: params (bad_request),
// then for gated methods the target app (not_running; for launch, not_found), the policy from
// config.json read afresh (Policy.decide, the core's), the method itself, and the action log.
//
// APPROVAL: the core's ApprovalGate decides (config.json read afresh, then the session's
// answers); for `ask` it shows ApprovalDialog (Allow for This Session / Always Allow / Deny,
// 60 s, one per app and connection) and records the answer. Refusals are logged with `refused`.
//
// Input runs with the InputFloor held (the core's: one input sequence at a time, none while an
// approval dialog is shown), and every check of where input lands is made under it. Without
// `mode` the foreground route (Input.swift, after the frontmost check); with
// `mode: "background"` the background route (BackgroundInput.swift) under a FocusGuard, which
// also moves the agent cursor (AgentCursor.swift) to the action's point. `makeKey` uses the
// same route's make-key pair. `ping`'s `background` lists the private functions found
// (SkyLight.swift).
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import CoreGraphics
import DeskbookHelperCore
import Foundation

final class MacDispatcher: Dispatcher {
    private let version: String
    private let ownPid: Int
    private let escapeTap: EscapeTap
    // Not private: DesktopMethods.swift (an extension in its own file) uses them.
    let apps = Apps()
    let accessibility = Accessibility()
    let windows: Windows
    /// One input sequence at a time, so two calls' events never interleave, and none while an
    /// approval dialog is shown; shared with the gate's dialog and the Escape watcher.
    /// Not private: DesktopMethods.swift's paste holds it too.
    let floor: InputFloor

    /// The approval gate, with the NSAlert dialog for `ask`.
    /// Not private: DesktopMethods.swift's runScript gates each app a script names.
    let approvals: ApprovalGate
    /// The one-time tokens of `confirm: "ask"`. Not private: DesktopMethods.swift's runScript shares the log.
    let confirmations = Confirmations()
    /// The AXObservers behind waitChange.
    let axEvents = AXEvents()

    init(version: String, escapeTap: EscapeTap, floor: InputFloor, pid: Int = Int(ProcessInfo.processInfo.processIdentifier),
         approvals: ApprovalGate? = nil) {
        self.version = version
        self.escapeTap = escapeTap
        self.floor = floor
        self.ownPid = pid
        self.approvals = approvals ?? ApprovalGate(approver: ApprovalDialog(), floor: floor)
        self.windows = Windows(accessibility: accessibility)
    }

    func call(_ request: Request, session: Session, reply: @escaping (Result<JSONValue, HelperError>) -> Void) {
        do {
            try ungatedTier(request, session: session)
            if let served = try clipboardCall(request, session: session) ?? scriptCall(request, session: session) {
                reply(.success(served))
            } else if UNGATED_METHODS.contains(request.method) {
                reply(.success(try ungated(request)))
            } else {
                reply(.success(try gated(request, session: session)))
            }
        } catch let error as HelperError {
            reply(.failure(error))
        } catch {
            reply(.failure(HelperError(.failed, String(describing: error))))
        }
    }

    // MARK: Ungated

    private func ungated(_ request: Request) throws -> JSONValue {
        let method = request.method
        switch method {
        case "ping":
            _ = try Params(method, request.params, allowed: [])
            let background = SkyLight.availability.mapValues { JSONValue.bool($0) }
            return .object([
                "version": .string(version), "platform": .string("darwin"),
                "pid": .number(Double(ownPid)), "background": .object(background),
                // Set-of-marks are painted by the client: screenshot takes no marks here.
                "marks": .bool(false),
            ])
        case "permissions":
            return try permissions(request)
        case "listApps":
            _ = try Params(method, request.params, allowed: [])
            return apps.list()
        case "resolveApp":
            let params = try Params(method, request.params, allowed: ["query"])
            return try apps.resolve(try params.string("query", minLength: 1, required: true) ?? "").info
        case "forget":
            let params = try Params(method, request.params, allowed: ["pid"])
            let pid = try params.integer("pid", minimum: 1, required: true) ?? 0
            if let number = pid_t(exactly: pid) {
                accessibility.table.forget(pid: number)
                axEvents.stop(pid: number)
            }
            return .object([:])
        case "cursor":
            let params = try Params(method, request.params, allowed: ["enabled", "hide", "x", "y", "windowId"])
            let enabled = try params.bool("enabled")
            let hide = try params.bool("hide") ?? false
            let x = try params.number("x")
            let y = try params.number("y")
            let windowId = try windowNumber(params, required: false)
            if (x == nil) != (y == nil) { throw badRequest(method, "give both `x` and `y`, or neither") }
            let cursor = AgentCursor.shared
            if let enabled = enabled { cursor.setEnabled(enabled) }
            let configDefault = configCursor()
            if hide {
                cursor.hide()
            } else if let x = x, let y = y {
                cursor.show(at: CGPoint(x: x, y: y), above: windowId, configDefault: configDefault)
            }
            return .object(["enabled": .bool(cursor.isEnabled(configDefault: configDefault))])
        default:
            throw HelperError(.failed, "\(method) is not served by the macOS helper")
        }
    }

    /// `permissions`: what is granted; `prompt` asks macOS to prompt, for everything missing
    /// (`true`) or for one permission (its name), so setup can ask one at a time.
    private func permissions(_ request: Request) throws -> JSONValue {
        let params = try Params(request.method, request.params, allowed: ["prompt", "inputMonitoring"])
        let asked = try promptedPermissions(request.params["prompt"], inputMonitoring: try params.bool("inputMonitoring") ?? false)
        let trusted: Bool
        if asked.contains("accessibility") {
            let options = [kAXTrustedCheckOptionPrompt.takeUnretainedValue() as String: true] as CFDictionary
            trusted = AXIsProcessTrustedWithOptions(options)
        } else {
            trusted = AXIsProcessTrusted()
        }
        var screen = CGPreflightScreenCaptureAccess()
        if asked.contains("screenRecording") && !screen { screen = CGRequestScreenCaptureAccess() }
        var listen = CGPreflightListenEventAccess()
        if asked.contains("inputMonitoring") && !listen { listen = CGRequestListenEventAccess() }
        if listen && !escapeTap.isRunning { escapeTap.start() }
        return .object([
            "accessibility": .bool(trusted), "screenRecording": .bool(screen),
            "inputMonitoring": .bool(listen), "escapeWatcher": .bool(escapeTap.isRunning),
        ])
    }

    /// The permissions `prompt` asks for: none, the usual two (three with `inputMonitoring`), or one by name.
    private func promptedPermissions(_ prompt: JSONValue?, inputMonitoring: Bool) throws -> Set<String> {
        guard let prompt = prompt else { return [] }
        if let all = prompt.boolValue {
            if !all { return [] }
            return inputMonitoring ? ["accessibility", "screenRecording", "inputMonitoring"] : ["accessibility", "screenRecording"]
        }
        if let name = prompt.stringValue, ["accessibility", "screenRecording", "inputMonitoring"].contains(name) {
            return [name]
        }
        throw badRequest("permissions", "prompt must be true, false, \"accessibility\", \"screenRecording\" or \"inputMonitoring\"")
    }

    // MARK: Gated

    private func gated(_ request: Request, session: Session) throws -> JSONValue {
        let home = HelperPaths.home()
        // Params and the target app come before config.json (the protocol's order), so a broken
        // config never hides a bad_request or not_running; axTree's defaults fall back meanwhile.
        let loaded = Result { try DeskbookConfig.load(home: home).config }
        let (target, run) = try prepare(request, readable: try? loaded.get())
        let config: DeskbookConfig
        do {
            config = try loaded.get()
        } catch let error as DeskbookConfig.LoadError {
            throw HelperError(.failed, error.message)
        }
        var approval = Confirmations.Approval.none
        do {
            // The grant tier first, so no dialog asks about a call that would be refused anyway.
            let grant = Grant.appGrant(config, app: target.policyApp)
            if let refusal = Grant.tierRefusal(grant.grant, method: request.method, params: request.params, who: target.name) {
                throw HelperError(.notGranted, refusal)
            }
            // May wait up to a minute for the dialog; this runs on the call queue, not the main thread.
            try approvals.admit(target.policyApp, detail: ApprovalDialog.detail(for: target), session: session)
            if grant.confirm == .ask, let pid = target.pid { approval = try confirmPress(request, app: target, pid: pid) }
        } catch let error as HelperError {
            if MacDispatcher.refusals.contains(error.code) {
                logAction(request, session: session, app: target, config: config, refused: error.code.rawValue)
            }
            throw error
        }
        // The approval is used up only by a press that was sent; a call that failed keeps it.
        let result: JSONValue
        do {
            result = try run()
        } catch {
            approval.notSent()
            throw error
        }
        approval.sent()
        var pid = target.pid.map { Int($0) }
        if request.method == "launch", let launched = result.objectValue?["pid"]?.safeIntegerValue { pid = launched }
        logAction(request, session: session, app: target, config: config, pid: pid, route: result.objectValue?["route"]?.stringValue)
        return result
    }

    /// Codes that mean the helper refused the call (logged with `refused`), not that it failed.
    static let refusals: [ErrorCode] = [.blocked, .denied, .notAllowed, .notGranted, .confirmationRequired]

    /// A press on a destructive-looking element waits for `deskbook confirm TOKEN` (Confirmations.swift).
    private func confirmPress(_ request: Request, app: AppRecord, pid: pid_t) throws -> Confirmations.Approval {
        guard let target = try pressTarget(request.method, request.params, pid: pid),
              let word = Grant.destructiveWord(target.label) else { return .none }
        let press = Confirmations.Press(app: app.name, pid: Int(pid), method: request.method, key: target.key, label: target.label, word: word)
        return try confirmations.check(press, home: HelperPaths.home())
    }

    /// Calls that act but name no app (clipboardWrite, runScript) pass the top-level grant.
    private func ungatedTier(_ request: Request, session: Session) throws {
        guard request.method == "clipboardWrite" || request.method == "runScript" else { return }
        let config = try currentConfig()
        guard let refusal = Grant.tierRefusal(config.grant, method: request.method, params: request.params, who: "calls that name no app") else { return }
        let app = request.method == "runScript" ? "(script)" : "(clipboard)"
        logUnnamed(request, session: session, app: app, config: config, refused: .notGranted)
        throw HelperError(.notGranted, refusal)
    }

    /// Checks the params, finds the target app, and returns it with the work to do once the
    /// gate lets the call through. `readable` is config.json if it could be read (the gate
    /// refuses the call otherwise); until then axTree's limits and the cursor use the defaults.
    private func prepare(_ request: Request, readable: DeskbookConfig?) throws -> (AppRecord, () throws -> JSONValue) {
        let ax = readable?.ax ?? DeskbookConfig.Ax()
        let cursor = readable?.cursor ?? true
        let method = request.method
        let values = request.params
        if method == "launch" {
            let params = try Params(method, values, allowed: ["bundleId", "path", "name", "activate", "args", "fresh"])
            // Fresh profiles are Linux-only (XDG directories); macOS apps keep theirs in
            // ~/Library, which a launch cannot redirect. Refused rather than ignored.
            if try params.bool("fresh") == true {
                throw HelperError(.failed, "fresh app profiles are not available on macOS yet; launch without fresh")
            }
            let bundleId = try params.string("bundleId", minLength: 1)
            let path = try params.string("path", minLength: 1)
            let name = try params.string("name", minLength: 1)
            let activate = try params.bool("activate") ?? false
            if bundleId == nil && path == nil && name == nil {
                throw HelperError(.badRequest, "launch params: give at least one of `bundleId`, `path`, `name`")
            }
            let args = try launchArguments(values["args"])
            let target = try apps.launchTarget(bundleId: bundleId, path: path, name: name)
            return (target, { try self.apps.launch(target, activate: activate, args: args).info })
        }

        let params: Params
        let work: (pid_t) throws -> JSONValue
        switch method {
        case "activate":
            params = try Params(method, values, allowed: ["pid"])
            work = { pid in
                try self.apps.activate(pid: pid)
                return .object([:])
            }
        case "isActive":
            params = try Params(method, values, allowed: ["pid"])
            work = { pid in .object(["active": .bool(self.apps.isActive(pid: pid))]) }
        case "windows":
            params = try Params(method, values, allowed: ["pid"])
            work = { pid in try self.windows.list(pid: pid) }
        case "axTree":
            params = try Params(method, values, allowed: ["pid", "window", "maxNodes", "maxDepth", "maxText", "menus"])
            let window = try params.integer("window", minimum: 0)
            let limits = TreeLimits(
                maxNodes: try params.integer("maxNodes", minimum: 1) ?? ax.maxNodes,
                maxDepth: try params.integer("maxDepth", minimum: 0) ?? ax.maxDepth,
                maxText: try params.integer("maxText", minimum: 1) ?? ax.maxTextLength)
            let menus = try params.bool("menus") ?? false
            work = { pid in
                try self.accessibility.tree(pid: pid, window: window, limits: limits, menus: menus) { element, index in
                    var taken = Set<UInt32>()
                    return self.windows.describe(element, index: index, context: self.windows.context(pid: pid), taken: &taken)
                }
            }
        case "waitChange":
            params = try Params(method, values, allowed: ["pid", "after", "timeoutMs"])
            let after = try params.integer("after", minimum: 0)
            let timeoutMs = try params.integer("timeoutMs", minimum: 0, required: true) ?? 0
            if timeoutMs > 60_000 { throw badRequest(method, "timeoutMs must be <= 60000") }
            work = { pid in try self.axEvents.waitChange(pid: pid, after: after, timeoutMs: timeoutMs) }
        case "inputHandled":
            // No barrier on macOS yet: the answer says so at once (via "none"), and the client
            // keeps only its fixed pause after input. Never compiled here; kept to the params check.
            params = try Params(method, values, allowed: ["pid", "timeoutMs"])
            let timeoutMs = try params.integer("timeoutMs", minimum: 0, required: true) ?? 0
            if timeoutMs > 60_000 { throw badRequest(method, "timeoutMs must be <= 60000") }
            work = { _ in .object(["handled": .bool(false), "via": .string("none"), "waitedMs": .number(0)]) }
        case "hitTest":
            params = try Params(method, values, allowed: ["pid", "x", "y"])
            let x = try params.number("x", required: true) ?? 0
            let y = try params.number("y", required: true) ?? 0
            work = { pid in try self.accessibility.hitTest(pid: pid, x: x, y: y) }
        case "elementFrame", "actionNames", "focusElement":
            params = try Params(method, values, allowed: ["pid", "index"])
            let index = try params.integer("index", minimum: 0, required: true) ?? 0
            work = { pid in
                switch method {
                case "elementFrame": return try self.accessibility.elementFrame(pid: pid, index: index)
                case "actionNames": return try self.accessibility.actionNames(pid: pid, index: index)
                default: return try self.accessibility.focusElement(pid: pid, index: index)
                }
            }
        case "performAction":
            params = try Params(method, values, allowed: ["pid", "index", "action"])
            let index = try params.integer("index", minimum: 0, required: true) ?? 0
            let action = try params.string("action", minLength: 1, required: true) ?? ""
            work = { pid in try self.accessibility.performAction(pid: pid, index: index, action: action) }
        case "setValue":
            params = try Params(method, values, allowed: ["pid", "index", "value", "attribute"])
            let index = try params.integer("index", minimum: 0, required: true) ?? 0
            guard let value = values["value"] else { throw badRequest(method, "missing `value`") }
            switch value {
            case .string, .number, .bool: break
            default: throw badRequest(method, "value must be a string, number or boolean")
            }
            let attribute = try params.string("attribute", minLength: 1) ?? "AXValue"
            work = { pid in try self.accessibility.setValue(pid: pid, index: index, value: value, attribute: attribute) }
        case "selectText":
            params = try Params(method, values, allowed: ["pid", "index", "start", "length"])
            let index = try params.integer("index", minimum: 0, required: true) ?? 0
            let start = try params.integer("start", minimum: 0, required: true) ?? 0
            let length = try params.integer("length", minimum: 0, required: true) ?? 0
            work = { pid in try self.accessibility.selectText(pid: pid, index: index, start: start, length: length) }
        case "keys":
            params = try Params(method, values, allowed: ["pid", "chords", "mode", "windowId", "windowLocation", "holdMs"])
            let chords = try self.chords(values["chords"], method)
            let options = try inputOptions(params)
            let holdMs = try params.integer("holdMs", minimum: 0) ?? 0
            if holdMs > 10_000 { throw badRequest(method, "holdMs must be <= 10000") }
            work = { pid in
                for chord in chords { _ = try Input.stroke(chord) } // names first: a bad one sends nothing
                return try self.input(pid: pid, options: options, at: nil, cursor: cursor,
                                      foreground: { try Input.keys(chords, post: Input.holding(ms: holdMs)) },
                                      background: { route, target in try route.keys(target, chords: chords) })
            }
        case "type":
            params = try Params(method, values, allowed: ["pid", "text", "mode", "windowId", "windowLocation"])
            let text = try params.string("text", required: true) ?? ""
            let options = try inputOptions(params)
            work = { pid in
                try self.input(pid: pid, options: options, at: nil, cursor: cursor,
                               foreground: { try Input.typeText(text) },
                               background: { route, target in try route.type(target, text: text) })
            }
        case "click":
            params = try Params(method, values, allowed: ["pid", "x", "y", "button", "count", "mods", "mode", "windowId", "windowLocation"])
            let x = try params.number("x", required: true) ?? 0
            let y = try params.number("y", required: true) ?? 0
            let button = try self.button(params)
            let count = try params.integer("count", minimum: 1) ?? 1
            if count > 3 { throw badRequest(method, "count must be <= 3") }
            let mods = try modifiers(values["mods"], method, field: "mods") ?? []
            let options = try inputOptions(params)
            let point = CGPoint(x: x, y: y)
            work = { pid in
                try self.input(pid: pid, options: options, at: point, cursor: cursor,
                               foreground: { try Input.click(x: x, y: y, button: button, count: count, mods: mods) },
                               background: { route, target in
                                   try route.click(target, at: point, button: button, count: count, mods: mods)
                               })
            }
        case "scroll":
            params = try Params(method, values, allowed: ["pid", "x", "y", "dy", "dx", "mode", "windowId", "windowLocation"])
            let x = try params.number("x", required: true) ?? 0
            let y = try params.number("y", required: true) ?? 0
            let dy = try params.number("dy") ?? 0
            let dx = try params.number("dx") ?? 0
            let options = try inputOptions(params)
            let point = CGPoint(x: x, y: y)
            work = { pid in
                try self.input(pid: pid, options: options, at: point, cursor: cursor,
                               foreground: { try Input.scroll(x: x, y: y, dy: dy, dx: dx) },
                               background: { route, target in try route.scroll(target, at: point, dy: dy, dx: dx) })
            }
        case "drag":
            params = try Params(method, values, allowed: ["pid", "path", "button", "mode", "windowId", "windowLocation"])
            let path = try points(values["path"], method)
            let button = try self.button(params)
            let options = try inputOptions(params)
            work = { pid in
                try self.input(pid: pid, options: options, at: path.first, cursor: cursor,
                               foreground: { try Input.drag(path, button: button) },
                               background: { route, target in try route.drag(target, path: path, button: button) })
            }
        case "move":
            params = try Params(method, values, allowed: ["pid", "x", "y"])
            let x = try params.number("x", required: true) ?? 0
            let y = try params.number("y", required: true) ?? 0
            // Moving the pointer changes no app's state, so there is no focus check (as on Linux);
            // posting still needs Accessibility (without it the event is dropped without a word),
            // and a hover must not reach an approval dialog either, so it holds the floor.
            work = { _ in
                try Accessibility.requireTrust()
                try self.floor.holdInput { try Input.move(x: x, y: y) }
                return .object([:])
            }
        case "makeKey":
            params = try Params(method, values, allowed: ["pid", "windowId"])
            let windowId = try windowNumber(params, required: true) ?? 0
            work = { pid in
                let keyed = try self.makeKey(pid: pid, windowId: windowId)
                return .object(["keyed": .bool(keyed)])
            }
        case "screenshot":
            params = try Params(method, values, allowed: ["pid", "windowId", "width", "height", "format", "quality"])
            let windowId = try params.integer("windowId", minimum: 0, required: true) ?? 0
            let width = try side(params, "width")
            let height = try side(params, "height")
            let format = try params.string("format") ?? "png"
            if format != "png" && format != "jpeg" { throw badRequest(method, "format must be \"png\" or \"jpeg\"") }
            let quality = try params.integer("quality", minimum: 1) ?? 80
            if quality > 100 { throw badRequest(method, "quality must be <= 100") }
            work = { pid in
                try Screenshots.capture(pid: pid, windowId: windowId, width: width, height: height, format: format, quality: quality)
            }
        default:
            guard let served = try desktopWork(method, values) else {
                throw HelperError(.failed, "\(method) is not implemented on macOS yet; see helper/macos/README.md")
            }
            params = served.0
            work = served.1
        }
        let pid = try params.integer("pid", minimum: 1, required: true) ?? 0
        let target = try apps.running(pid: pid)
        let number = target.pid ?? 0
        return (target, { try work(number) })
    }

    /// Input with the floor held: the foreground route after the frontmost check, or, with a
    /// background window, the background route under a focus guard (the agent cursor moves to
    /// `point` first unless `cursor`, config.json's, is off: a decoration that never fails the call).
    /// Every check of where the input lands runs under the floor: before it, another call's
    /// activation or an approval dialog could change the frontmost app between check and events.
    private func input(pid: pid_t, options: InputOptions, at point: CGPoint?, cursor: Bool, foreground: () throws -> Void,
                       background: (BackgroundInput, BackgroundInput.Target) throws -> String) throws -> JSONValue {
        guard options.windowId != nil else {
            return try floor.holdInput {
                try Input.requireForeground(pid: pid)
                try foreground()
                return Input.foregroundResult
            }
        }
        return try floor.holdInput { try backgroundInput(pid: pid, options: options, at: point, cursor: cursor, background: background) }
    }

    /// The background route; the caller holds the floor.
    private func backgroundInput(pid: pid_t, options: InputOptions, at point: CGPoint?, cursor: Bool,
                                 background: (BackgroundInput, BackgroundInput.Target) throws -> String) throws -> JSONValue {
        try Accessibility.requireTrust()
        let route = BackgroundInput(windows: windows)
        let target = try route.target(pid: pid, options: options)
        if let point = point { AgentCursor.shared.show(at: point, above: target.windowId, configDefault: cursor) }
        let focus = FocusGuard(target: pid)
        let taken: String
        do {
            taken = try background(route, target)
        } catch {
            _ = focus.restore()
            throw error
        }
        return .object(["route": .string(taken), "focusRestored": .bool(focus.restore())])
    }

    /// `makeKey`: the make-key pair and the Accessibility check, with the floor held.
    private func makeKey(pid: pid_t, windowId: UInt32) throws -> Bool {
        return try floor.holdInput { try makeKeyHeld(pid: pid, windowId: windowId) }
    }

    private func makeKeyHeld(pid: pid_t, windowId: UInt32) throws -> Bool {
        try Accessibility.requireTrust()
        let route = BackgroundInput(windows: windows)
        let target = try route.target(pid: pid, options: InputOptions(windowId: windowId, screenLocation: false))
        let focus = FocusGuard(target: pid)
        let keyed = try route.makeKey(target)
        _ = focus.restore()
        return keyed
    }

    /// config.json's `cursor` (default true), read afresh; a config that cannot be read
    /// counts as the default, since the cursor is only a decoration.
    private func configCursor() -> Bool {
        return (try? DeskbookConfig.load(home: HelperPaths.home()).config.cursor) ?? true
    }

    // MARK: Params the core's Params does not cover

    private func badRequest(_ method: String, _ detail: String) -> HelperError {
        return HelperError(.badRequest, "\(method) params: \(detail)")
    }

    /// mode ("background"), windowId, windowLocation; mode needs windowId. The window is
    /// kept only with mode "background": without it, the options mean the foreground route.
    private func inputOptions(_ params: Params) throws -> InputOptions {
        let mode = try params.string("mode")
        if let mode = mode, mode != "background" { throw badRequest(params.method, "mode must be \"background\"") }
        let windowId = try windowNumber(params, required: false)
        let location = try params.string("windowLocation") ?? "window"
        if location != "window" && location != "screen" {
            throw badRequest(params.method, "windowLocation must be \"window\" or \"screen\"")
        }
        if mode != nil && windowId == nil { throw badRequest(params.method, "mode needs `windowId`") }
        return InputOptions(windowId: mode == nil ? nil : windowId, screenLocation: location == "screen")
    }

    /// `windowId` as a CGWindowID (UInt32); bad_request for a number beyond that.
    private func windowNumber(_ params: Params, required: Bool) throws -> UInt32? {
        guard let value = try params.integer("windowId", minimum: 0, required: required) else { return nil }
        guard let id = UInt32(exactly: value) else { throw badRequest(params.method, "windowId is not a window id") }
        return id
    }

    private func button(_ params: Params) throws -> String {
        let button = try params.string("button") ?? "left"
        guard ["left", "right", "middle"].contains(button) else {
            throw badRequest(params.method, "button must be \"left\", \"right\" or \"middle\"")
        }
        return button
    }

    private func side(_ params: Params, _ key: String) throws -> Int {
        let value = try params.integer(key, minimum: 1, required: true) ?? 1
        if value > 16384 { throw badRequest(params.method, "\(key) must be <= 16384") }
        return value
    }

    private func modifiers(_ value: JSONValue?, _ method: String, field: String) throws -> [String]? {
        guard let value = value else { return nil }
        guard let list = value.arrayValue else { throw badRequest(method, "\(field) must be an array") }
        return try list.map { item in
            guard let name = item.stringValue, ["ctrl", "shift", "alt", "super", "fn"].contains(name) else {
                throw badRequest(method, "\(field) items must be one of ctrl, shift, alt, super, fn")
            }
            return name
        }
    }

    private func chords(_ value: JSONValue?, _ method: String) throws -> [Chord] {
        guard let value = value else { throw badRequest(method, "missing `chords`") }
        guard let list = value.arrayValue, !list.isEmpty else { throw badRequest(method, "chords must be a non-empty array") }
        return try list.map { item in
            guard let fields = item.objectValue else { throw badRequest(method, "each chord must be an object") }
            if let unknown = fields.keys.sorted().first(where: { $0 != "key" && $0 != "mods" }) {
                throw badRequest(method, "unknown field `\(unknown)` in a chord")
            }
            guard let key = fields["key"]?.stringValue, !key.isEmpty else { throw badRequest(method, "each chord needs a non-empty `key`") }
            guard let mods = try modifiers(fields["mods"], method, field: "mods") else { throw badRequest(method, "each chord needs `mods`") }
            return Chord(key: key, mods: mods)
        }
    }

    private func points(_ value: JSONValue?, _ method: String) throws -> [CGPoint] {
        guard let value = value else { throw badRequest(method, "missing `path`") }
        guard let list = value.arrayValue, list.count >= 2 else { throw badRequest(method, "path must hold at least two points") }
        return try list.map { item in
            guard let pair = item.arrayValue, pair.count == 2, let x = pair[0].numberValue, let y = pair[1].numberValue else {
                throw badRequest(method, "each point of path must be [x, y]")
            }
            return CGPoint(x: x, y: y)
        }
    }

    // MARK: Action log

    /// A refused call that names no app of its own (the clipboard, a script), logged with `refused`.
    /// A call that names no app of its own (the clipboard, a script), logged as ActionLog writes
    /// every line: a script's source and a text as their length unless `log.text`.
    func logUnnamed(_ request: Request, session: Session, app: String, config: DeskbookConfig, refused: ErrorCode? = nil) {
        let record = ActionLog.Record(client: session.client ?? "", step: request.step, app: app, action: request.method,
                                      params: request.params, refused: refused?.rawValue)
        do {
            try ActionLog.append(home: HelperPaths.home(), log: config.log, record: record)
        } catch {
            FileHandle.standardError.write(Data("deskbook helper: actions.log: \(error)\n".utf8))
        }
    }

    /// config.json as it is now; one that cannot be used fails the call (the gate never guesses).
    func currentConfig() throws -> DeskbookConfig {
        do {
            return try DeskbookConfig.load(home: HelperPaths.home()).config
        } catch let error as DeskbookConfig.LoadError {
            throw HelperError(.failed, error.message)
        }
    }

    private func logAction(_ request: Request, session: Session, app: AppRecord, config: DeskbookConfig,
                     pid: Int? = nil, route: String? = nil, refused: String? = nil) {
        guard ActionLog.loggedMethods.contains(request.method) else { return }
        let record = ActionLog.Record(client: session.client ?? "", step: request.step, app: app.name,
                                      pid: pid ?? app.pid.map { Int($0) }, action: request.method,
                                      params: request.params, route: route, refused: refused)
        do {
            try ActionLog.append(home: HelperPaths.home(), log: config.log, record: record)
        } catch {
            // A log that cannot be written must not undo an action already done; say so on stderr.
            FileHandle.standardError.write(Data("deskbook helper: actions.log: \(error)\n".utf8))
        }
    }
}

/// A value handed over by a completion handler on another queue, waited for with a timeout.
final class Pending<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var value: Value?

    func deliver(_ delivered: Value) {
        lock.lock()
        value = delivered
        lock.unlock()
        done.signal()
    }

    /// The value, or nil when none came within `seconds`.
    func wait(seconds: Double) -> Value? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
