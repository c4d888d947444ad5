// Starting with arguments, quitting, hiding, and refusing a name that means two apps: the app
// lifecycle beyond Apps.swift's launch and activate. `quit` asks politely (terminate(), which
// the app may answer with a "save changes?" sheet) or ends the app (forceTerminate()), then
// reports whether it is gone.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import DeskbookHelperCore
import Foundation

extension Apps {
    private static let quitSeconds = 5.0

    /// `launch` with `args`: a new instance with those arguments (macOS cannot hand arguments to
    /// a running one); without args, Apps.launch (the running instance if there is one).
    func launch(_ target: AppRecord, activate: Bool, args: [String]?) throws -> AppRecord {
        guard let args = args else { return try launch(target, activate: activate) }
        guard let path = target.path else { throw HelperError(.notFound, "\(target.name) has no bundle to launch") }
        let configuration = NSWorkspace.OpenConfiguration()
        configuration.activates = activate
        configuration.arguments = args
        configuration.createsNewApplicationInstance = target.running != nil
        let pending = Pending<(NSRunningApplication?, Error?)>()
        NSWorkspace.shared.openApplication(at: URL(fileURLWithPath: path), configuration: configuration) { app, error in
            pending.deliver((app, error))
        }
        guard let outcome = pending.wait(seconds: 15), let app = outcome.0 else {
            throw HelperError(.failed, "could not launch \(target.name) with its arguments")
        }
        let deadline = Date().addingTimeInterval(15)
        while !app.isFinishedLaunching && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        return record(app)
    }

    func quit(pid: pid_t, force: Bool) throws -> JSONValue {
        guard let app = NSRunningApplication(processIdentifier: pid) else {
            throw HelperError(.notRunning, "no running app has pid \(pid)")
        }
        let asked = force ? app.forceTerminate() : app.terminate()
        if !asked && !app.isTerminated {
            throw HelperError(.actionFailed, "pid \(pid) refused to be asked to quit")
        }
        let deadline = Date().addingTimeInterval(Apps.quitSeconds)
        while !app.isTerminated && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return .object(["exited": .bool(app.isTerminated)])
    }

    func hide(pid: pid_t) throws -> JSONValue {
        guard let app = NSRunningApplication(processIdentifier: pid) else {
            throw HelperError(.notRunning, "no running app has pid \(pid)")
        }
        _ = app.hide()
        return .object([:])
    }

    /// The one app `query` names among `matches`: instances of one app (same bundle id or path)
    /// are that app; two different apps are `ambiguous`, as on Linux. nil when nothing matched.
    func onlyOne(_ matches: [AppRecord], query: String) throws -> AppRecord? {
        guard let first = matches.first else { return nil }
        var seen: [String: AppRecord] = [:]
        var order: [String] = []
        for app in matches {
            let identity = app.bundleId ?? app.path ?? app.name
            if seen[identity] == nil { order.append(identity) }
            seen[identity] = seen[identity] ?? app
        }
        if order.count == 1 { return first }
        let names = order.compactMap { seen[$0] }.map { "\($0.name) (\($0.bundleId.map { "id \($0)" } ?? $0.path ?? "?"))" }
        throw HelperError(.ambiguous, "\"\(query)\" names \(order.count) apps: \(names.joined(separator: ", ")); name one by its bundle id, path or pid:N")
    }
}
