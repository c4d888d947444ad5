// The safety tiers, as helper/linux/grant.ts has them, checked against the same vectors
// (test/fixtures/grant-vectors.json): `grant` in config.json (and per app under `apps`) says
// what a cell may do to an app. `read-only` reads only, `act` also drives the app's own UI,
// `full` (the default) also runs scripts and force-quits. `confirm: "ask"` makes a press on an
// element labelled like pay/buy/send/delete/transfer wait for the person (Confirmations.swift).
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum Grant {
    /// What applies to one app: its entries under `apps` where it has some, else the top level.
    public struct AppGrant: Equatable {
        public var grant: DeskbookConfig.GrantTier
        public var confirm: DeskbookConfig.ConfirmMode
    }

    /// Methods that only read: every tier allows them. Every other method acts.
    public static let readMethods: Set<String> = [
        "hello", "ping", "permissions", "listApps", "resolveApp", "forget", "cursor",
        "isActive", "windows", "axTree", "hitTest", "elementFrame", "actionNames", "screenshot", "readText", "waitChange", "clipboardRead",
        // Asks whether the app has handled its input; sends it nothing that acts.
        "inputHandled",
    ]

    /// Methods that only let go of what an earlier call holds: every tier allows them, so a key
    /// held down before the grant became read-only is never left stuck down.
    public static let releaseMethods: Set<String> = ["keyUp"]

    /// Words that make a press look destructive or costly, in the forms a button shows. Past
    /// tenses (Sent, Deleted, Paid) are left out: those label folders and states, not actions.
    public static let destructiveWords: [String] = [
        "pay", "pays", "paying", "payment", "payments",
        "buy", "buys", "buying", "purchase", "purchases", "purchasing", "checkout",
        "send", "sends", "sending",
        "delete", "deletes", "deleting", "remove", "removes", "removing", "erase", "erasing",
        "transfer", "transfers", "transferring",
    ]

    /// Several `apps` entries may name one app: the strictest grant, and `ask` if any says so,
    /// so the outcome never hangs on key order (Foundation's JSON reader does not keep it).
    public static func appGrant(_ config: DeskbookConfig, app: Policy.App?) -> AppGrant {
        var grant: DeskbookConfig.GrantTier?
        var confirm: DeskbookConfig.ConfirmMode?
        if let app = app {
            let names = Set(Policy.appNames(app).map { $0.lowercased() })
            for (key, rule) in config.apps where names.contains(key.trimmingCharacters(in: .whitespaces).lowercased()) {
                if let tier = rule.grant { grant = grant.map { stricter($0, tier) } ?? tier }
                if let mode = rule.confirm { confirm = confirm == .ask || mode == .ask ? .ask : .off }
            }
        }
        return AppGrant(grant: grant ?? config.grant, confirm: confirm ?? config.confirm)
    }

    /// The message of a not_granted refusal, or nil when the tier allows the call. `who`: the app, for messages.
    public static func tierRefusal(_ grant: DeskbookConfig.GrantTier, method: String, params: [String: JSONValue], who: String) -> String? {
        if readMethods.contains(method) || releaseMethods.contains(method) { return nil }
        if grant == .readOnly {
            return "\(method) acts, and \"grant\" for \(who) is \"read-only\" in config.json; set it to \"act\" to allow actions"
        }
        let forced = method == "quit" && params["force"]?.boolValue == true
        if grant == .act && (method == "runScript" || forced) {
            let what = method == "runScript" ? "runScript" : "quit with force"
            return "\(what) needs \"grant\": \"full\", and \"grant\" for \(who) is \"act\" in config.json"
        }
        return nil
    }

    /// The word that makes `label` look destructive, or nil. Words are runs of letters and digits.
    public static func destructiveWord(_ label: String) -> String? {
        let words = label.lowercased().components(separatedBy: CharacterSet.alphanumerics.inverted)
        return words.first { destructiveWords.contains($0) }
    }

    static func stricter(_ a: DeskbookConfig.GrantTier, _ b: DeskbookConfig.GrantTier) -> DeskbookConfig.GrantTier {
        let order: [DeskbookConfig.GrantTier] = [.readOnly, .act, .full]
        return (order.firstIndex(of: a) ?? 0) <= (order.firstIndex(of: b) ?? 0) ? a : b
    }
}
