// $DESKBOOK_HOME/config.json, read with the keys and defaults of src/config/config.ts (generated
// into ConfigShape.swift) and its merge rules and messages: a missing file means every default, a section merges key by key, a
// present key with a wrong value is an error naming it, an unknown key is a warning (with a
// "did you mean"), and a file that is not JSON is an error. The gate reads it afresh for every
// call and never guesses past an error.
import Foundation

public struct DeskbookConfig: Equatable {
    public enum Approval: String, Equatable, CaseIterable {
        case ask
        case allowlist
        case allowAll = "allow-all"
    }

    /// What the helper lets a cell do to an app (Grant.swift): read it, act on it, or also script it and force it to quit.
    public enum GrantTier: String, Equatable, CaseIterable {
        case readOnly = "read-only"
        case act
        case full
    }

    /// `ask`: a press on an element labelled like pay/buy/send/delete/transfer waits for `deskbook confirm`.
    public enum ConfirmMode: String, Equatable, CaseIterable {
        case ask
        case off
    }

    /// One entry of `apps`: what applies to that app instead of the top-level `grant` and `confirm`.
    public struct AppRule: Equatable {
        public var grant: GrantTier?
        public var confirm: ConfirmMode?
        public init(grant: GrantTier? = nil, confirm: ConfirmMode? = nil) {
            self.grant = grant
            self.confirm = confirm
        }
    }

    public enum Input: String, Equatable, CaseIterable {
        case background
        case foreground
    }

    public enum ImageFormat: String, Equatable, CaseIterable {
        case png
        case jpeg
    }

    public struct Screenshot: Equatable {
        public var maxLongSide = ConfigDefaults.screenshotMaxLongSide
        public var maxPixels = ConfigDefaults.screenshotMaxPixels
        public var format = ConfigDefaults.screenshotFormat
        public var quality = ConfigDefaults.screenshotQuality
        public init() {}
    }

    public struct Ax: Equatable {
        public var maxNodes = ConfigDefaults.axMaxNodes
        public var maxDepth = ConfigDefaults.axMaxDepth
        public var maxTextLength = ConfigDefaults.axMaxTextLength
        public init() {}
    }

    public struct Log: Equatable {
        public var enabled = ConfigDefaults.logEnabled
        public var text = ConfigDefaults.logText
        public init(enabled: Bool = ConfigDefaults.logEnabled, text: Bool = ConfigDefaults.logText) {
            self.enabled = enabled
            self.text = text
        }
    }

    /// The clipboard grant: reading is off unless the user turns it on.
    public struct Clipboard: Equatable {
        public var read = ConfigDefaults.clipboardRead
        public var write = ConfigDefaults.clipboardWrite
        public init(read: Bool = ConfigDefaults.clipboardRead, write: Bool = ConfigDefaults.clipboardWrite) {
            self.read = read
            self.write = write
        }
    }

    /// The config and its non-fatal findings (unknown keys), one line each.
    public struct Loaded: Equatable {
        public var config: DeskbookConfig
        public var warnings: [String]
    }

    /// A config.json that cannot be used; `message` names the file and, when one is at fault, the key.
    public struct LoadError: Error, Equatable, CustomStringConvertible {
        public let message: String
        /// The config file at fault.
        public let source: String
        /// Dotted key path, when a single key is at fault.
        public let key: String?
        public var description: String { return message }
    }

    public static let fileName = "config.json"

    // Defaults from ConfigDefaults (ConfigShape.swift, generated from DEFAULT_CONFIG).
    public var approval = ConfigDefaults.approval
    public var allow = ConfigDefaults.allow
    public var deny = ConfigDefaults.deny
    public var grant = ConfigDefaults.grant
    public var confirm = ConfigDefaults.confirm
    /// Per-app rules, keyed by a name the app answers to (matched like `allow`).
    public var apps: [String: AppRule] = [:]
    public var input = ConfigDefaults.input
    public var foregroundApps = ConfigDefaults.foregroundApps
    public var cursor = ConfigDefaults.cursor
    public var screenshot = Screenshot()
    public var ax = Ax()
    public var log = Log()
    public var clipboard = Clipboard()
    public var timeoutMs = ConfigDefaults.timeoutMs
    public var settleMs = ConfigDefaults.settleMs

    /// Every default.
    public init() {}

    /// Reads `home`/config.json; a missing file means every default.
    public static func load(home: String) throws -> Loaded {
        let path = (home as NSString).appendingPathComponent(fileName)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            if !FileManager.default.fileExists(atPath: path) {
                return Loaded(config: DeskbookConfig(), warnings: [])
            }
            throw LoadError(message: "\(path): cannot read the config file (\(error.localizedDescription)).", source: path, key: nil)
        }
        return try parse(data, source: path)
    }

    /// Pure: config text in, validated config out. `source` labels messages.
    public static func parse(_ data: Data, source: String) throws -> Loaded {
        var body = data
        // Editors on Windows like to prepend a byte order mark, which JSON parsers reject.
        if body.starts(with: [0xEF, 0xBB, 0xBF]) {
            body = body.dropFirst(3)
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(Data(body))
        } catch {
            throw LoadError(
                message: "\(source): not valid JSON: \(JSONValue.describeParseError(error)). "
                    + "Fix the syntax (double-quoted keys and strings, no trailing commas, no comments) "
                    + "or delete the file to use the defaults.",
                source: source, key: nil)
        }
        guard let top = root.objectValue else {
            throw LoadError(
                message: "\(source): the config must be a JSON object like {\"approval\": \"ask\"}, found \(root.described).",
                source: source, key: nil)
        }
        var reader = Reader(source: source)
        let config = try reader.readTop(top)
        return Loaded(config: config, warnings: reader.warnings)
    }
}

extension DeskbookConfig {
    // The key lists (topKeys, screenshotKeys …) are generated: ConfigShape.swift.

    /// setTimeout fires at once for delays above 2^31-1 ms, so larger values are bugs.
    static let maxTimerMs: Double = 2_147_483_647

    /// One pass over the file: values checked key by key, warnings collected.
    struct Reader {
        let source: String
        var warnings: [String] = []

        init(source: String) {
            self.source = source
        }

        mutating func readTop(_ object: [String: JSONValue]) throws -> DeskbookConfig {
            warnUnknown(object, known: DeskbookConfig.topKeys, at: "")
            var config = DeskbookConfig()
            if let value = try pick(object, "approval", at: "", DeskbookConfig.oneOf(Approval.self)) { config.approval = value }
            if let value = try pick(object, "allow", at: "", DeskbookConfig.checkStringList) { config.allow = value }
            if let value = try pick(object, "deny", at: "", DeskbookConfig.checkStringList) { config.deny = value }
            if let value = try pick(object, "grant", at: "", DeskbookConfig.oneOf(GrantTier.self)) { config.grant = value }
            if let value = try pick(object, "confirm", at: "", DeskbookConfig.oneOf(ConfirmMode.self)) { config.confirm = value }
            config.apps = try readApps(section(object, "apps"))
            if let value = try pick(object, "input", at: "", DeskbookConfig.oneOf(Input.self)) { config.input = value }
            if let value = try pick(object, "foregroundApps", at: "", DeskbookConfig.checkStringList) { config.foregroundApps = value }
            if let value = try pick(object, "cursor", at: "", DeskbookConfig.checkBool) { config.cursor = value }
            config.screenshot = try readScreenshot(section(object, "screenshot"))
            config.ax = try readAx(section(object, "ax"))
            config.log = try readLog(section(object, "log"))
            config.clipboard = try readClipboard(section(object, "clipboard"))
            if let value = try pick(object, "timeoutMs", at: "", DeskbookConfig.checkTimeoutMs) { config.timeoutMs = value }
            if let value = try pick(object, "settleMs", at: "", DeskbookConfig.checkSettleMs) { config.settleMs = value }
            return config
        }

        /// `apps`: {"<app name>": {"grant"?, "confirm"?}}; every value must be an object.
        mutating func readApps(_ object: [String: JSONValue]) throws -> [String: AppRule] {
            var apps: [String: AppRule] = [:]
            for name in object.keys.sorted() {
                guard let entry = object[name]?.objectValue else {
                    throw keyError("apps.\(name)", expected: "an object like {\"grant\": \"read-only\"}", found: object[name] ?? .null)
                }
                let at = "apps.\(name)."
                warnUnknown(entry, known: DeskbookConfig.appRuleKeys, at: at)
                apps[name] = AppRule(
                    grant: try pick(entry, "grant", at: at, DeskbookConfig.oneOf(GrantTier.self)),
                    confirm: try pick(entry, "confirm", at: at, DeskbookConfig.oneOf(ConfirmMode.self)))
            }
            return apps
        }

        mutating func readScreenshot(_ object: [String: JSONValue]) throws -> Screenshot {
            let at = "screenshot."
            warnUnknown(object, known: DeskbookConfig.screenshotKeys, at: at)
            var screenshot = Screenshot()
            if let value = try pick(object, "maxLongSide", at: at, DeskbookConfig.checkPositiveInt) { screenshot.maxLongSide = value }
            if let value = try pick(object, "maxPixels", at: at, DeskbookConfig.checkPositiveInt) { screenshot.maxPixels = value }
            if let value = try pick(object, "format", at: at, DeskbookConfig.oneOf(ImageFormat.self)) { screenshot.format = value }
            if let value = try pick(object, "quality", at: at, DeskbookConfig.checkQuality) { screenshot.quality = value }
            return screenshot
        }

        mutating func readAx(_ object: [String: JSONValue]) throws -> Ax {
            let at = "ax."
            warnUnknown(object, known: DeskbookConfig.axKeys, at: at)
            var ax = Ax()
            if let value = try pick(object, "maxNodes", at: at, DeskbookConfig.checkPositiveInt) { ax.maxNodes = value }
            if let value = try pick(object, "maxDepth", at: at, DeskbookConfig.checkPositiveInt) { ax.maxDepth = value }
            if let value = try pick(object, "maxTextLength", at: at, DeskbookConfig.checkPositiveInt) { ax.maxTextLength = value }
            return ax
        }

        mutating func readLog(_ object: [String: JSONValue]) throws -> Log {
            let at = "log."
            warnUnknown(object, known: DeskbookConfig.logKeys, at: at)
            var log = Log()
            if let value = try pick(object, "enabled", at: at, DeskbookConfig.checkBool) { log.enabled = value }
            if let value = try pick(object, "text", at: at, DeskbookConfig.checkBool) { log.text = value }
            return log
        }

        mutating func readClipboard(_ object: [String: JSONValue]) throws -> Clipboard {
            let at = "clipboard."
            warnUnknown(object, known: DeskbookConfig.clipboardKeys, at: at)
            var clipboard = Clipboard()
            if let value = try pick(object, "read", at: at, DeskbookConfig.checkBool) { clipboard.read = value }
            if let value = try pick(object, "write", at: at, DeskbookConfig.checkBool) { clipboard.write = value }
            return clipboard
        }

        /// A nested section; absent means "all defaults", so it merges key by key.
        func section(_ object: [String: JSONValue], _ key: String) throws -> [String: JSONValue] {
            guard let value = object[key] else { return [:] }
            guard let fields = value.objectValue else { throw keyError(key, expected: "an object", found: value) }
            return fields
        }

        /// The checked value, nil when absent; a present but wrong value throws.
        func pick<T>(_ object: [String: JSONValue], _ key: String, at: String, _ check: Check<T>) throws -> T? {
            guard let value = object[key] else { return nil }
            guard let checked = check.read(value) else { throw keyError(at + key, expected: check.expected, found: value) }
            return checked
        }

        func keyError(_ key: String, expected: String, found: JSONValue) -> LoadError {
            return LoadError(
                message: "\(source): \"\(key)\" must be \(expected), found \(found.described). "
                    + "Fix the value or remove the key to use the default.",
                source: source, key: key)
        }

        /// Unknown keys, in sorted order (the file's own order is not kept by the decoder).
        mutating func warnUnknown(_ object: [String: JSONValue], known: [String], at: String) {
            for key in object.keys.sorted() where !known.contains(key) {
                let hint = DeskbookConfig.closest(key, known).map { " (did you mean \"\(at)\($0)\"?)" } ?? ""
                warnings.append("\(source): unknown key \"\(at)\(key)\" ignored\(hint)")
            }
        }
    }

    /// A check of one value, with the wording used when it fails.
    struct Check<T> {
        let expected: String
        let read: (JSONValue) -> T?
    }

    static let checkBool = Check<Bool>(expected: "a boolean (true or false)") { $0.boolValue }

    static let checkStringList = Check<[String]>(expected: "an array of strings") { value in
        guard let items = value.arrayValue else { return nil }
        var strings: [String] = []
        for item in items {
            guard let text = item.stringValue else { return nil }
            strings.append(text)
        }
        return strings
    }

    static let checkPositiveInt = Check<Int>(expected: "a positive integer") { value in
        guard let number = value.safeIntegerValue, number > 0 else { return nil }
        return number
    }

    static let checkTimeoutMs = Check<Double>(expected: "a positive number of milliseconds (at most \(Int(DeskbookConfig.maxTimerMs)))") { value in
        guard let number = value.numberValue, number > 0, number <= DeskbookConfig.maxTimerMs else { return nil }
        return number
    }

    static let checkSettleMs = Check<Double>(expected: "a number of milliseconds from 0 to \(Int(DeskbookConfig.maxTimerMs))") { value in
        guard let number = value.numberValue, number >= 0, number <= DeskbookConfig.maxTimerMs else { return nil }
        return number
    }

    static let checkQuality = Check<Int>(expected: "an integer from 1 to 100") { value in
        guard let number = value.numberValue, number.rounded() == number, number >= 1, number <= 100 else { return nil }
        return Int(number)
    }

    static func oneOf<E: RawRepresentable & CaseIterable>(_ type: E.Type) -> Check<E> where E.RawValue == String {
        let names = E.allCases.map { JSONValue.stringText($0.rawValue) }.joined(separator: ", ")
        return Check<E>(expected: "one of \(names)") { value in
            guard let text = value.stringValue else { return nil }
            return E(rawValue: text)
        }
    }

    /// A likely intended key for a typo, if one is within two edits (the first best wins).
    static func closest(_ key: String, _ candidates: [String]) -> String? {
        var best: String?
        var bestDistance = 3
        for candidate in candidates {
            let distance = DeskbookConfig.editDistance(Array(key.lowercased()), Array(candidate.lowercased()))
            if distance < bestDistance {
                best = candidate
                bestDistance = distance
            }
        }
        return best
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row.append(Swift.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost))
            }
            previous = row
        }
        return previous[b.count]
    }
}
