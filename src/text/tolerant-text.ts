// The one tolerant comparison of a text someone wrote with a text an app shows, used where an
// exact match found nothing: locators (src/desk/locate.ts) and menu titles
// (helper/linux/menu-path.ts; helper/macos MenuMatch.swift keeps the same rules and is held to
// them by test/fixtures/menu-match-vectors.json). Below both layers, as both import it.

/**
 * What a tolerant match compares: Unicode compatibility forms folded, "…" as "...", mnemonic
 * underscores dropped, runs of spaces as one, a trailing ellipsis or ":" dropped, lower case.
 */
export function tolerantKey(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/…/g, "...")
    .replace(/_/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\s*(?:\.\.\.|:)$/, "")
    .toLowerCase();
}
