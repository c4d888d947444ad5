// Which menu item a title names, among one level's titles: the rules of helper/linux/menu-path.ts
// (exact after trimming, else a unique tolerant match ignoring case, "…" versus "...", a
// trailing ellipsis or ":", runs of spaces and mnemonic underscores: src/text/tolerant-text.ts),
// checked by both helpers against test/fixtures/menu-match-vectors.json.
//
// NEVER COMPILED OR RUN (see README.md).
import Foundation

public enum MenuMatch {
    /// What the tolerant match compares.
    public static func key(_ title: String) -> String {
        var text = title.precomposedStringWithCompatibilityMapping
            .replacingOccurrences(of: "…", with: "...")
            .replacingOccurrences(of: "_", with: "")
        text = text.components(separatedBy: .whitespacesAndNewlines).filter { !$0.isEmpty }.joined(separator: " ")
        if text.hasSuffix("...") {
            text = String(text.dropLast(3)).trimmingCharacters(in: .whitespaces)
        } else if text.hasSuffix(":") {
            text = String(text.dropLast(1)).trimmingCharacters(in: .whitespaces)
        }
        return text.lowercased()
    }

    /// The index among `labels` that `wanted` names; not_found listing the labels when none or several match.
    /// `above` names the levels already walked, for the message.
    public static func match(_ labels: [String], wanted: String, above: [String] = []) throws -> Int {
        let trimmed = wanted.trimmingCharacters(in: .whitespacesAndNewlines)
        if let exact = labels.firstIndex(of: trimmed) { return exact }
        let wantedKey = key(wanted)
        let loose = labels.indices.filter { key(labels[$0]) == wantedKey }
        if loose.count == 1 { return loose[0] }
        let place = above.isEmpty ? "in the menu bar" : "in " + describe(above)
        if loose.count > 1 {
            let names = loose.map { "\"\(labels[$0])\"" }.joined(separator: ", ")
            throw HelperError(.notFound, "\"\(wanted)\" matches several items \(place): \(names); give the exact title")
        }
        let available = labels.isEmpty ? "no items" : labels.map { "\"\($0)\"" }.joined(separator: ", ")
        throw HelperError(.notFound, "no menu item \"\(wanted)\" \(place); it has: \(available)")
    }

    /// "\"File\" > \"Save As…\"".
    public static func describe(_ path: [String]) -> String {
        return path.map { "\"\($0)\"" }.joined(separator: " > ")
    }
}
