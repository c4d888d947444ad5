// The approval gate, as helper/linux/approval.ts: every gated call passes here before it acts.
// The policy is the pure Policy.decide; this adds config.json read afresh for every decision,
// the dialog for `ask` (one per app and connection at a time: concurrent calls wait for the
// same answer), the session's answers, and "Always Allow" written back to config.json.
// The dialog itself is an Approver, so tests can answer it. While it is asked, the dialog holds
// the InputFloor, so no synthetic input from another call can answer it.
// The dialog's deadline is fixed when the call asks, so a dialog that waited for another to
// close gets what is left of its 60 s, not a fresh minute: the call never waits longer.
import Foundation

/// What the user did with the dialog.
public enum ApprovalAnswer: Equatable {
    /// "Allow for This Session".
    case session
    /// "Always Allow".
    case always
    case deny
    /// Nobody answered within the timeout.
    case timeout
    /// The connection closed while the dialog was up.
    case closed
    /// No dialog could be shown; the reason, for the message.
    case unavailable(String)
}

/// What the dialog shows, and when to give up.
public struct ApprovalRequest {
    /// The `client` from hello.
    public let client: String
    public let app: Policy.App
    /// How the helper identified the app (bundle id, pid), for the dialog.
    public let detail: String
    /// Seconds the call may wait for an answer in all, for the dialog's text.
    public let timeout: TimeInterval
    /// When the dialog closes itself and answers `.timeout`: `timeout` after the call asked,
    /// however long the dialog waited to be shown.
    public let deadline: Date
    /// True once the connection has closed: the dialog should close and answer `.closed`.
    public let isClosed: () -> Bool

    public init(client: String, app: Policy.App, detail: String, timeout: TimeInterval,
                deadline: Date? = nil, isClosed: @escaping () -> Bool) {
        self.client = client
        self.app = app
        self.detail = detail
        self.timeout = timeout
        self.deadline = deadline ?? Date().addingTimeInterval(timeout)
        self.isClosed = isClosed
    }

    /// Seconds left until the deadline (never negative).
    public var remaining: TimeInterval {
        return max(0, deadline.timeIntervalSinceNow)
    }
}

/// Shows the approval dialog. Called on a background queue; blocks until the user answers,
/// `request.timeout` passes, or the connection closes.
public protocol Approver: AnyObject {
    func ask(_ request: ApprovalRequest) -> ApprovalAnswer
}

public final class ApprovalGate: @unchecked Sendable {
    public static let dialogTimeout: TimeInterval = 60

    private let approver: Approver
    private let home: () -> String
    private let timeout: TimeInterval
    private let warn: (String) -> Void
    /// Held while the dialog is asked: input from every call waits meanwhile.
    public let floor: InputFloor
    private let lock = NSLock()
    /// The dialogs being shown, by connection and app.
    private var asking: [AskKey: Ask] = [:]

    private struct AskKey: Hashable {
        let session: ObjectIdentifier
        let app: String
    }

    /// One dialog and the callers waiting for it. `failure` is set (under the gate's lock)
    /// before `done` is left.
    private final class Ask {
        let done = DispatchGroup()
        var failure: HelperError?
    }

    public init(
        approver: Approver,
        home: @escaping () -> String = { HelperPaths.home() },
        timeout: TimeInterval = ApprovalGate.dialogTimeout,
        floor: InputFloor = InputFloor(),
        warn: @escaping (String) -> Void = { FileHandle.standardError.write(Data("deskbook helper: \($0)\n".utf8)) }
    ) {
        self.approver = approver
        self.floor = floor
        self.home = home
        self.timeout = timeout
        self.warn = warn
    }

    /// Returns when the call may go ahead; throws HelperError `blocked`, `denied` or
    /// `not_allowed` otherwise (`failed` when config.json cannot be read). `detail` says how
    /// the helper identified the app, for the dialog.
    public func admit(_ app: Policy.App, detail: String, session: Session) throws {
        if try settle(Policy.decide(try config(), app, session.approvals)) { return }
        try dialogOnce(app, detail: detail, session: session)
        if try settle(Policy.decide(try config(), app, session.approvals)) { return }
        throw HelperError(.denied, "no answer for \(app.name)")
    }

    /// True when allowed, false when the dialog is needed; a refusal is thrown.
    private func settle(_ decision: Policy.Decision) throws -> Bool {
        switch decision {
        case .allowed:
            return true
        case .ask:
            return false
        case .refused(let code, let message):
            throw HelperError(code.errorCode, message)
        }
    }

    private func config() throws -> Policy.Config {
        do {
            return Policy.Config(try DeskbookConfig.load(home: home()).config)
        } catch let error as DeskbookConfig.LoadError {
            throw HelperError(.failed, error.message)
        }
    }

    /// The first caller for an app on a connection shows the dialog; the others wait for its
    /// answer and share its outcome.
    private func dialogOnce(_ app: Policy.App, detail: String, session: Session) throws {
        let key = AskKey(session: ObjectIdentifier(session), app: Policy.appKey(app))
        lock.lock()
        if let pending = asking[key] {
            lock.unlock()
            pending.done.wait()
            lock.lock()
            let failure = pending.failure
            lock.unlock()
            if let failure = failure { throw failure }
            return
        }
        let ask = Ask()
        ask.done.enter()
        asking[key] = ask
        lock.unlock()

        let failure = showDialog(app, detail: detail, session: session)
        lock.lock()
        ask.failure = failure
        asking[key] = nil
        lock.unlock()
        ask.done.leave()
        if let failure = failure { throw failure }
    }

    /// Shows the dialog and records the answer; the refusal to throw, if any.
    private func showDialog(_ app: Policy.App, detail: String, session: Session) -> HelperError? {
        let request = ApprovalRequest(
            client: session.client ?? "a client", app: app, detail: detail, timeout: timeout,
            isClosed: { [weak session] in session?.isClosed ?? true })
        let allow = Policy.allowEntry(app)
        // The waiting cell says at once that a dialog is open and how else to allow the app.
        session.notify(.approval(state: "pending", app: app.name, allow: allow, timeoutS: Int(timeout)))
        let answer = floor.holdDialog { () -> ApprovalAnswer in
            // The floor may have waited for an input sequence; its time counts against the minute.
            if request.remaining <= 0 { return .timeout }
            return approver.ask(request)
        }
        let allowed: Bool
        switch answer {
        case .session, .always: allowed = true
        default: allowed = false
        }
        session.notify(.approval(state: allowed ? "allowed" : "denied", app: app.name, allow: allow, timeoutS: nil))
        return record(answer, app: app, session: session)
    }

    private func record(_ answer: ApprovalAnswer, app: Policy.App, session: Session) -> HelperError? {
        let key = Policy.appKey(app)
        switch answer {
        case .session:
            session.record(.allow, forKey: key, name: app.name)
            return nil
        case .always:
            session.record(.allow, forKey: key, name: app.name)
            alwaysAllow(app)
            return nil
        case .deny:
            session.record(.deny, forKey: key, name: app.name)
            return HelperError(.denied, "the user chose Deny for \(app.name) in this session; to allow it after all, run `deskbook allow \(Policy.allowEntry(app))` and try again")
        case .timeout:
            // Not remembered: the user may simply have been away.
            return HelperError(.denied, "nobody answered the approval dialog for \(app.name) within a minute; run `deskbook allow \(Policy.allowEntry(app))` and try again")
        case .closed:
            // Not remembered either; nobody is left to read this.
            return HelperError(.denied, "the connection closed before the approval dialog for \(app.name) was answered")
        case .unavailable(let reason):
            let entry = JSONValue.stringText(Policy.allowEntry(app))
            let howToAllow = "run \"deskbook allow \(Policy.allowEntry(app))\", or add \(entry) to \"allow\" in \(home())/config.json"
            return HelperError(.denied, "\(app.name) needs approval but no dialog can be shown (\(reason)); \(howToAllow), or set \"approval\" to \"allow-all\"")
        }
    }

    private func alwaysAllow(_ app: Policy.App) {
        let entry = Policy.allowEntry(app)
        do {
            try ConfigEdit.addToAllow(home: home(), entry: entry)
        } catch {
            // The session approval stands; the user is told on the helper's log.
            warn("could not add \(entry) to config.json: \(error)")
        }
    }
}
