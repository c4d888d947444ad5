// What runScript refuses before osascript sees a script, and which apps a script names (each
// passes the approval gate like any other app). A script is arbitrary code with the helper's
// grants, so the ways out of the gate are refused: shell escapes, the Objective-C bridge, and
// terminal apps (a terminal runs anything). The cases are test/fixtures/script-policy-vectors.json,
// run by ScriptPolicyTests and, against these lists, by test/macos/swift-script-policy.test.ts.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum ScriptPolicy {
    static let refusedPhrases: [(String, String)] = [
        ("do shell script", "a shell escape (do shell script)"),
        ("doshellscript", "a shell escape (doShellScript)"),
        ("objc.", "the Objective-C bridge (ObjC.import, $…)"),
        ("use framework", "the Objective-C bridge (use framework)"),
        ("current application's", "the Objective-C bridge (current application's …)"),
        ("$.", "the Objective-C bridge ($.…)"),
        ("run script", "a nested script (run script)"),
    ]
    static let terminalApps = ["terminal", "iterm", "iterm2", "warp", "alacritty", "kitty", "hyper", "wezterm", "ghostty"]

    /// `blocked` naming what the script may not do, or nothing.
    public static func check(_ source: String) throws {
        let folded = source.lowercased().components(separatedBy: .whitespacesAndNewlines).filter { !$0.isEmpty }.joined(separator: " ")
        for (phrase, what) in refusedPhrases where folded.contains(phrase) {
            throw HelperError(.blocked, "runScript refuses \(what): scripts may only drive apps the gate approves")
        }
        for app in namedApps(source) where terminalApps.contains(app.lowercased().replacingOccurrences(of: ".app", with: "")) {
            throw HelperError(.blocked, "runScript refuses to drive \(app): a terminal runs anything")
        }
    }

    /// Every app the script names: `application "X"` (AppleScript) and `Application("X")` (JXA).
    public static func namedApps(_ source: String) -> [String] {
        let patterns = [#"application\s+(?:id\s+)?"([^"]+)""#, #"Application\(\s*["']([^"']+)["']\s*\)"#]
        var names: [String] = []
        for pattern in patterns {
            guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
            let range = NSRange(source.startIndex..., in: source)
            for match in regex.matches(in: source, range: range) {
                if let found = Range(match.range(at: 1), in: source), !names.contains(String(source[found])) {
                    names.append(String(source[found]))
                }
            }
        }
        return names
    }
}
