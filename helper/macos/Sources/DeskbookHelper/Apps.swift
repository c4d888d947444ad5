// The app catalog: listApps, resolveApp, launch, activate, isActive, and the app behind a pid
// for the approval gate. Running apps come from NSWorkspace.shared.runningApplications
// (regular apps only: no agents or daemons); installed ones from the .app bundles directly
// inside /Applications, /Applications/Utilities, /System/Applications,
// /System/Applications/Utilities and ~/Applications.
//
// runningApplications and frontmostApplication only change while the main run loop runs,
// which is why main.swift runs NSApplication instead of dispatchMain().
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import ApplicationServices
import DeskbookHelperCore
import Foundation

/// One app as the helper knows it: what the client sees (AppInfo) and what the gate matches.
struct AppRecord {
    var name: String
    var bundleId: String?
    var path: String?
    var executable: String?
    var running: NSRunningApplication?

    var pid: pid_t? { return running?.processIdentifier }

    var info: JSONValue {
        var fields: [String: JSONValue] = ["name": .string(name), "running": .bool(running != nil)]
        if let bundleId = bundleId { fields["bundleId"] = .string(bundleId) }
        if let path = path { fields["path"] = .string(path) }
        if let app = running {
            fields["pid"] = .number(Double(app.processIdentifier))
            fields["active"] = .bool(app.isActive)
        }
        return .object(fields)
    }

    var policyApp: Policy.App {
        let ownPid = ProcessInfo.processInfo.processIdentifier
        return Policy.App(name: name, bundleId: bundleId, executable: executable, isSelf: pid == ownPid)
    }

    /// For the dialog and messages: which program and process.
    var label: String { return name }
}

final class Apps {
    private static let folders = ["/Applications", "/Applications/Utilities", "/System/Applications", "/System/Applications/Utilities"]

    // MARK: Catalog

    func record(_ app: NSRunningApplication) -> AppRecord {
        let executable = app.executableURL?.lastPathComponent
        // AppInfo's name must not be empty (schema minLength 1): an empty localizedName falls through.
        let name = Apps.firstNonEmpty([app.localizedName, app.bundleURL?.deletingPathExtension().lastPathComponent, executable])
            ?? "pid \(app.processIdentifier)"
        return AppRecord(name: name, bundleId: app.bundleIdentifier, path: app.bundleURL?.path ?? app.executableURL?.path,
                         executable: executable, running: app)
    }

    func record(bundleAt url: URL) -> AppRecord? {
        guard let bundle = Bundle(url: url) else { return nil }
        let info = bundle.infoDictionary ?? [:]
        let name = Apps.firstNonEmpty([info["CFBundleDisplayName"] as? String, info["CFBundleName"] as? String])
            ?? url.deletingPathExtension().lastPathComponent
        let executable = info["CFBundleExecutable"] as? String
        return AppRecord(name: name, bundleId: bundle.bundleIdentifier, path: url.path, executable: executable, running: nil)
    }

    private static func firstNonEmpty(_ candidates: [String?]) -> String? {
        return candidates.compactMap { $0 }.first { !$0.isEmpty }
    }

    func runningApps() -> [AppRecord] {
        return NSWorkspace.shared.runningApplications.filter { $0.activationPolicy == .regular }.map { record($0) }
    }

    /// Installed apps, each once: an app installed twice (the same bundle id in
    /// /Applications and ~/Applications, say) is listed from the first folder that has it,
    /// which is also the copy `resolveApp` and `launch` find.
    func installedApps() -> [AppRecord] {
        var folders = Apps.folders
        folders.append((NSHomeDirectory() as NSString).appendingPathComponent("Applications"))
        var found: [AppRecord] = []
        var seen = Set<String>()
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() where name.hasSuffix(".app") {
                guard let app = record(bundleAt: URL(fileURLWithPath: folder).appendingPathComponent(name)) else { continue }
                if let id = app.bundleId?.lowercased() {
                    if seen.contains(id) { continue }
                    seen.insert(id)
                }
                found.append(app)
            }
        }
        return found
    }

    /// `listApps`: the running apps, then installed ones not running (by bundle id or path).
    func list() -> JSONValue {
        let running = runningApps()
        let runningIds = Set(running.compactMap { $0.bundleId?.lowercased() })
        let runningPaths = Set(running.compactMap { $0.path })
        var apps = running
        for app in installedApps() {
            if let id = app.bundleId?.lowercased(), runningIds.contains(id) { continue }
            if let path = app.path, runningPaths.contains(path) { continue }
            apps.append(app)
        }
        return .array(apps.map { $0.info })
    }

    /// `resolveApp`: `pid:N`, a path, a bundle id or a name (case-insensitive); running first.
    func resolve(_ query: String) throws -> AppRecord {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.lowercased().hasPrefix("pid:") {
            guard let number = Int32(trimmed.dropFirst(4).trimmingCharacters(in: .whitespaces)),
                  let app = NSRunningApplication(processIdentifier: number) else {
                throw HelperError(.notFound, "no running app has \(trimmed)")
            }
            return record(app)
        }
        if trimmed.hasPrefix("/") || trimmed.hasPrefix("~") {
            return try appAt(path: trimmed)
        }
        let lower = trimmed.lowercased()
        let matches: (AppRecord) -> Bool = { app in
            return app.bundleId?.lowercased() == lower || app.name.lowercased() == lower || app.executable?.lowercased() == lower
        }
        if let app = try onlyOne(runningApps().filter(matches), query: trimmed) { return app }
        if let app = try onlyOne(installedApps().filter(matches), query: trimmed) { return app }
        if let url = NSWorkspace.shared.urlForApplication(withBundleIdentifier: trimmed), let app = record(bundleAt: url) {
            return app
        }
        throw HelperError(.notFound, "no app matches \(JSONValue.stringText(trimmed))")
    }

    private func appAt(path: String) throws -> AppRecord {
        let full = (path as NSString).expandingTildeInPath
        let url = URL(fileURLWithPath: full).standardizedFileURL
        if let running = NSWorkspace.shared.runningApplications.first(where: { $0.bundleURL?.standardizedFileURL == url || $0.executableURL?.standardizedFileURL == url }) {
            return record(running)
        }
        guard FileManager.default.fileExists(atPath: url.path), let app = record(bundleAt: url) else {
            throw HelperError(.notFound, "no app at \(full)")
        }
        return app
    }

    /// The running app with this pid, for a gated call; `not_running` otherwise.
    func running(pid: Int) throws -> AppRecord {
        guard let number = pid_t(exactly: pid), let app = NSRunningApplication(processIdentifier: number), !app.isTerminated else {
            throw HelperError(.notRunning, "no running app has pid \(pid)")
        }
        return record(app)
    }

    /// The app `launch` would start: bundleId, else path, else name (the first given wins).
    func launchTarget(bundleId: String?, path: String?, name: String?) throws -> AppRecord {
        if let bundleId = bundleId {
            if let running = runningApps().first(where: { $0.bundleId?.lowercased() == bundleId.lowercased() }) { return running }
            guard let url = NSWorkspace.shared.urlForApplication(withBundleIdentifier: bundleId), let app = record(bundleAt: url) else {
                throw HelperError(.notFound, "no app has bundle id \(bundleId)")
            }
            return app
        }
        if let path = path { return try appAt(path: path) }
        return try resolve(name ?? "")
    }

    // MARK: Acting

    /// `launch`: the running instance, or NSWorkspace.openApplication(at:configuration:), then
    /// waits (15 s in all, as the Linux helper) until the app has finished launching and shows
    /// a window, so that the next call finds one; `failed` if none came.
    func launch(_ target: AppRecord, activate: Bool) throws -> AppRecord {
        if let running = target.running {
            if activate { try self.activate(pid: running.processIdentifier) }
            return record(running)
        }
        guard let path = target.path else { throw HelperError(.notFound, "\(target.name) has no bundle to launch") }
        let configuration = NSWorkspace.OpenConfiguration()
        configuration.activates = activate
        let pending = Pending<(NSRunningApplication?, Error?)>()
        NSWorkspace.shared.openApplication(at: URL(fileURLWithPath: path), configuration: configuration) { app, error in
            pending.deliver((app, error))
        }
        guard let outcome = pending.wait(seconds: 15) else {
            throw HelperError(.failed, "\(target.name) did not start within 15 s")
        }
        let (launched, failure) = outcome
        guard let app = launched else {
            throw HelperError(.failed, "could not launch \(target.name): \(failure.map { String(describing: $0) } ?? "no reason given")")
        }
        let deadline = Date().addingTimeInterval(Apps.launchTimeout)
        while !app.isFinishedLaunching && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        try waitForWindow(app, target: target, deadline: deadline)
        return record(app)
    }

    /// Seconds `launch` waits for the app and its first window.
    static let launchTimeout: TimeInterval = 15
    /// Once the window server shows a window, how long to wait for Accessibility to list it
    /// (as helper/linux/app-launcher.ts waits for AT-SPI, then goes on without it).
    static let accessibleGrace: TimeInterval = 2

    /// Until the app owns a layer-0 window and AXWindows lists one (or the grace passed).
    private func waitForWindow(_ app: NSRunningApplication, target: AppRecord, deadline: Date) throws {
        let pid = app.processIdentifier
        var shownSince: Date?
        while Date() < deadline {
            if app.isTerminated { throw HelperError(.failed, "\(target.name) quit before showing a window") }
            if Windows.serverWindows().contains(where: { $0.pid == pid }) {
                let since = shownSince ?? Date()
                shownSince = since
                let listed = !AXIsProcessTrusted() || !AX.elements(AXUIElementCreateApplication(pid), "AXWindows").isEmpty
                if listed || Date().timeIntervalSince(since) > Apps.accessibleGrace { return }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HelperError(.failed, "\(target.name) showed no window within \(Int(Apps.launchTimeout)) s "
            + "(some apps open none when launched in the background: try `activate: true`)")
    }

    /// `activate`: NSRunningApplication.activate(options:), then AXFrontmost if the app did not
    /// come forward within 0.5 s (macOS 14 may refuse activation requested by a background
    /// process); `activate_failed` if it is still not frontmost after 1 s more.
    func activate(pid: pid_t) throws {
        guard let app = NSRunningApplication(processIdentifier: pid) else {
            throw HelperError(.notRunning, "no running app has pid \(pid)")
        }
        if #available(macOS 14.0, *) {
            _ = app.activate(options: [.activateAllWindows])
        } else {
            _ = app.activate(options: [.activateAllWindows, .activateIgnoringOtherApps])
        }
        if waitFrontmost(pid, seconds: 0.5) { return }
        _ = AXUIElementSetAttributeValue(AXUIElementCreateApplication(pid), "AXFrontmost" as CFString, kCFBooleanTrue)
        if waitFrontmost(pid, seconds: 1) { return }
        throw HelperError(.activateFailed, "pid \(pid) did not come to the front")
    }

    func isActive(pid: pid_t) -> Bool {
        return NSWorkspace.shared.frontmostApplication?.processIdentifier == pid
    }

    private func waitFrontmost(_ pid: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if isActive(pid: pid) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return isActive(pid: pid)
    }
}
