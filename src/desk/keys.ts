import type { KeyChord, Modifier } from "../helper/protocol.js";

const MODIFIERS: Record<string, Modifier> = {
  ctrl: "ctrl",
  control: "ctrl",
  shift: "shift",
  alt: "alt",
  option: "alt",
  super: "super",
  cmd: "super",
  command: "super",
  meta: "super",
  fn: "fn",
};

/**
 * `"ctrl+s"` or `["Return", "Tab"]` → chords. Key names are xdotool keysyms and are checked
 * by the helper (`bad_key`); modifiers are checked here so a typo fails before anything is sent.
 */
export function parseKeys(keys: string | string[]): KeyChord[] {
  const list = typeof keys === "string" ? [keys] : keys;
  if (!Array.isArray(list) || list.length === 0 || !list.every((k) => typeof k === "string" && k.length > 0)) {
    throw new TypeError('pressKey takes a key like "ctrl+s" or a list like ["Return", "Tab"]');
  }
  return list.map(parseChord);
}

function parseChord(chord: string): KeyChord {
  // "ctrl++" means ctrl and the plus key: the last part is always the key.
  const parts = chord.endsWith("++") ? [...chord.slice(0, -2).split("+"), "+"] : chord.split("+");
  const key = parts.pop()!;
  if (key === "") throw new TypeError(`"${chord}" has no key after its modifiers`);
  const mods = parts.map((name) => {
    const mod = MODIFIERS[name.toLowerCase()];
    if (!mod) throw new TypeError(`unknown modifier "${name}" in "${chord}"; use ctrl, shift, alt, super or fn`);
    return mod;
  });
  return { key, mods: [...new Set(mods)] };
}
