// The approval policy as a pure function, mirroring helper/linux/policy.ts line for line, so
// both helpers pass the same vectors (test/fixtures/policy-vectors.json). The order is the
// contract (docs/security.md): the helper itself, deny, allow, the blocked list, then the
// approval mode and the session's answers.
import Foundation

public enum Policy {
    /// The part of config.json the policy reads.
    public struct Config: Equatable {
        public var approval: DeskbookConfig.Approval
        public var allow: [String]
        public var deny: [String]

        public init(approval: DeskbookConfig.Approval = .ask, allow: [String] = [], deny: [String] = []) {
            self.approval = approval
            self.allow = allow
            self.deny = deny
        }

        public init(_ config: DeskbookConfig) {
            self.init(approval: config.approval, allow: config.allow, deny: config.deny)
        }
    }

    /// An app as the gate sees it; every name is matched whole and case-insensitively.
    public struct App: Equatable {
        /// What people call it (the app's localized name).
        public var name: String
        /// The macOS bundle id (com.apple.calculator); on Linux the desktop file id.
        public var bundleId: String?
        /// The executable's file name.
        public var executable: String?
        /// Further names it answers to.
        public var aliases: [String]
        /// The helper's own process: refused whatever the config says.
        public var isSelf: Bool

        public init(name: String, bundleId: String? = nil, executable: String? = nil, aliases: [String] = [], isSelf: Bool = false) {
            self.name = name
            self.bundleId = bundleId
            self.executable = executable
            self.aliases = aliases
            self.isSelf = isSelf
        }
    }

    /// The user's answer in an approval dialog, remembered for the connection.
    public enum SessionChoice: String, Equatable {
        case allow
        case deny
    }

    public enum RefusalCode: String, Equatable {
        case blocked
        case denied
        case notAllowed = "not_allowed"

        public var errorCode: ErrorCode {
            switch self {
            case .blocked: return .blocked
            case .denied: return .denied
            case .notAllowed: return .notAllowed
            }
        }
    }

    public enum Decision: Equatable {
        case allowed
        case refused(RefusalCode, String)
        /// approval "ask" and no answer yet: show the dialog.
        case ask
    }

    /// `sessionApprovals` holds the user's dialog answers on this connection, keyed by appKey().
    public static func decide(_ config: Config, _ app: App, _ sessionApprovals: [String: SessionChoice]) -> Decision {
        let label = displayName(app)
        if app.isSelf {
            return .refused(.blocked, "\(label) is the Deskbook helper itself; it cannot be automated")
        }
        let names = appNames(app)
        if listed(config.deny, names) {
            return .refused(.denied, "\(label) is on the deny list in config.json")
        }
        if listed(config.allow, names) {
            return .allowed
        }
        let entry = JSONValue.stringText(allowEntry(app))
        if BlockedApps.blockedName(names) != nil {
            return .refused(.blocked, "\(label) is blocked by default; add \(entry) to \"allow\" in config.json to unlock it")
        }
        switch config.approval {
        case .allowAll:
            return .allowed
        case .allowlist:
            return .refused(.notAllowed, "approval is \"allowlist\" and \(label) is not on the allow list; add \(entry) to \"allow\" in config.json")
        case .ask:
            break
        }
        switch sessionApprovals[appKey(app)] {
        case .some(.allow):
            return .allowed
        case .some(.deny):
            return .refused(.denied, "you chose Deny for \(label) in this session")
        case .none:
            return .ask
        }
    }

    /// Every name the app answers to, without empties or repeats, in order.
    public static func appNames(_ app: App) -> [String] {
        var all: [String] = [app.name]
        if let bundleId = app.bundleId { all.append(bundleId) }
        if let executable = app.executable { all.append(executable) }
        all.append(contentsOf: app.aliases)
        var seen = Set<String>()
        var names: [String] = []
        for name in all where !isBlank(name) && !seen.contains(name) {
            seen.insert(name)
            names.append(name)
        }
        return names
    }

    /// One key per app for session approvals: the most specific name it has, lowercased.
    public static func appKey(_ app: App) -> String {
        return (firstNonEmpty(app.bundleId, app.executable) ?? app.name).lowercased()
    }

    /// What "Always allow" writes to `allow`: the bundle id, else the executable, else the name.
    public static func allowEntry(_ app: App) -> String {
        return firstNonEmpty(app.bundleId, app.executable) ?? app.name
    }

    private static func listed(_ list: [String], _ names: [String]) -> Bool {
        let lower = Set(names.map { $0.lowercased() })
        return list.contains { entry in
            lower.contains(entry.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        }
    }

    private static func displayName(_ app: App) -> String {
        return firstNonEmpty(app.name, app.bundleId, app.executable) ?? "the app"
    }

    /// JavaScript's `a || b || c` over optional strings: the first that is neither nil nor "".
    private static func firstNonEmpty(_ candidates: String?...) -> String? {
        for candidate in candidates {
            if let value = candidate, !value.isEmpty { return value }
        }
        return nil
    }

    private static func isBlank(_ name: String) -> Bool {
        return name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
}
