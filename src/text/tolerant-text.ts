// The one tolerant comparison of a text someone wrote with a text an app shows, used where an
// exact match found nothing: locators (src/desk/locate.ts) and menu titles
// (helper/linux/menu-path.ts; helper/macos MenuMatch.swift keeps the same rules and is held to
// them by test/fixtures/menu-match-vectors.json). Below both layers, as both import it.

/**
 * What a tolerant match compares: Unicode compatibility forms folded, "…" as "...", runs of
 * spaces as one, a trailing ellipsis or ":" dropped, lower case. `mnemonics` also drops
 * underscores, for menu titles whose toolkit keeps its mnemonic marks ("_File"); elsewhere an
 * underscore is part of the text ("my_report.txt" is not "myreport.txt").
 */
export function tolerantKey(text: string, options: { mnemonics?: boolean } = {}): string {
  const marked = options.mnemonics ? text.replace(/_/g, "") : text;
  return marked
    .normalize("NFKC")
    .replace(/…/g, "...")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\s*(?:\.\.\.|:)$/, "")
    .toLowerCase();
}
