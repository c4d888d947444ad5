// xdotool-style key names → X keysyms, and chord parsing ("ctrl+shift+s"). Names are those
// of keysymdef.h (what xdotool's XStringToKeysym accepts), plus single characters, a few
// friendly aliases, "U+2713"/"U2713" and "0xff0d".

import { DeskError } from "../../src/helper/desk-error.js";
import type { KeyChord, Modifier } from "../../src/helper/protocol.js";
import { keysymEntries } from "./x11-client.js";

export const XK = {
  BackSpace: 0xff08,
  Tab: 0xff09,
  Return: 0xff0d,
  Escape: 0xff1b,
  Shift_L: 0xffe1,
  Control_L: 0xffe3,
  Alt_L: 0xffe9,
  Super_L: 0xffeb,
} as const;

/** Keysyms 0x01000000 + code point stand for any Unicode character. */
const UNICODE_KEYSYM_BASE = 0x01000000;

/** The key each modifier presses; fn has no X keysym (laptops handle it in hardware). */
// Maps rather than object literals: names come from users, and "constructor" must not match.
const MODIFIER_KEYSYMS: ReadonlyMap<string, number | null> = new Map<Modifier, number | null>([
  ["ctrl", XK.Control_L],
  ["shift", XK.Shift_L],
  ["alt", XK.Alt_L],
  ["super", XK.Super_L],
  ["fn", null],
]);

const MODIFIER_WORDS: ReadonlyMap<string, Modifier> = new Map<string, Modifier>([
  ["ctrl", "ctrl"],
  ["control", "ctrl"],
  ["shift", "shift"],
  ["alt", "alt"],
  ["option", "alt"],
  ["meta", "alt"],
  ["super", "super"],
  ["cmd", "super"],
  ["command", "super"],
  ["win", "super"],
  ["fn", "fn"],
]);

/** Names people type that keysymdef.h spells differently. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["enter", "Return"],
  ["esc", "Escape"],
  ["del", "Delete"],
  ["ins", "Insert"],
  ["pageup", "Page_Up"],
  ["pagedown", "Page_Down"],
  ["pgup", "Page_Up"],
  ["pgdn", "Page_Down"],
  ["backspace", "BackSpace"],
]);

interface Tables {
  byName: Map<string, number>;
  byLowerName: Map<string, number>;
  /** Characters whose keysym is a legacy (non-Unicode) one: "€" → EuroSign. */
  legacyByChar: Map<string, number>;
}

let tables: Tables | null = null;

/** The keysym of a key name; throws an Error with code "bad_key" for unknown names. */
export function keysymOf(name: string): number {
  if ([...name].length === 1) return keysymsOfChar(name)[0];
  const t = loadTables();
  const exact = t.byName.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  const alias = ALIASES.get(lower) ?? modifierKeyName(lower);
  if (alias) return keysymOf(alias);
  return t.byLowerName.get(lower) ?? numericKeysym(name) ?? fail(name);
}

/**
 * Keysyms that produce a character, best first: the Latin-1 or legacy keysym a keymap
 * would carry, then the Unicode keysym. The last entry is what to bind on a spare keycode.
 */
export function keysymsOfChar(char: string): number[] {
  const cp = char.codePointAt(0);
  if (cp === undefined || [...char].length !== 1) throw badKey(char);
  const control = controlKeysym(cp);
  if (control !== null) return [control];
  if (cp < 0x20 || cp === 0x7f) throw badKey(`U+${cp.toString(16).padStart(4, "0")}`);
  if (isLatin1Printable(cp)) return [cp];
  const legacy = loadTables().legacyByChar.get(char);
  const unicode = UNICODE_KEYSYM_BASE + cp;
  return legacy === undefined ? [unicode] : [legacy, unicode];
}

/** The keysym to press for a modifier, or null for fn (no X equivalent; ignored). */
export function modifierKeysym(mod: Modifier): number | null {
  const keysym = MODIFIER_KEYSYMS.get(mod);
  // Params arrive as JSON: a modifier outside the type is the caller's mistake.
  if (keysym === undefined) throw new DeskError("bad_request", `unknown modifier "${String(mod)}"`);
  return keysym;
}

/**
 * "ctrl+shift+s" → { key: "s", mods: ["ctrl", "shift"] }; "ctrl++" presses plus. An unknown
 * key is bad_key, an unknown modifier bad_request (as the protocol has it for chords).
 */
export function parseChord(text: string): KeyChord {
  const parts = splitChord(text);
  const key = parts.pop();
  if (key === undefined || key === "") throw badKey(text);
  const mods: Modifier[] = [];
  for (const part of parts) {
    const mod = MODIFIER_WORDS.get(part.toLowerCase());
    if (!mod) throw new DeskError("bad_request", `"${part}" in "${text}" is not a modifier (ctrl, shift, alt, super, fn)`);
    if (!mods.includes(mod)) mods.push(mod);
  }
  keysymOf(key); // validate now, so a typo fails before anything is pressed
  return { key, mods };
}

/** Splits on "+", reading an empty part after a "+" as the plus key itself. */
function splitChord(text: string): string[] {
  if (text === "+") return ["+"];
  if (text.endsWith("++")) return [...text.slice(0, -2).split("+"), "+"];
  return text.split("+").map((p) => p.trim());
}

function modifierKeyName(lower: string): string | undefined {
  const mod = MODIFIER_WORDS.get(lower);
  const keysym = mod ? MODIFIER_KEYSYMS.get(mod) : null;
  if (keysym === null || keysym === undefined) return undefined;
  return Object.entries(XK).find(([, v]) => v === keysym)?.[0];
}

/** "U+2713", "U2713" (XStringToKeysym's Unicode form) and "0xff0d". */
function numericKeysym(name: string): number | undefined {
  const unicode = /^U\+?([0-9a-f]{2,6})$/i.exec(name);
  if (unicode) {
    const cp = parseInt(unicode[1], 16);
    return cp <= 0x10ffff ? keysymsOfChar(String.fromCodePoint(cp)).at(-1) : undefined;
  }
  const hex = /^0x([0-9a-f]{1,8})$/i.exec(name);
  return hex ? parseInt(hex[1], 16) : undefined;
}

/** Characters typed as keys: newline is Return, tab is Tab, backspace is BackSpace. */
function controlKeysym(cp: number): number | null {
  if (cp === 0x0a || cp === 0x0d) return XK.Return;
  if (cp === 0x09) return XK.Tab;
  if (cp === 0x08) return XK.BackSpace;
  if (cp === 0x1b) return XK.Escape;
  return null;
}

/** Latin-1 printable characters are their own keysyms. */
function isLatin1Printable(cp: number): boolean {
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff);
}

function loadTables(): Tables {
  if (tables) return tables;
  const t: Tables = { byName: new Map(), byLowerName: new Map(), legacyByChar: new Map() };
  for (const e of keysymEntries()) {
    if (!t.byName.has(e.name)) t.byName.set(e.name, e.keysym);
    if (!t.byLowerName.has(e.name.toLowerCase())) t.byLowerName.set(e.name.toLowerCase(), e.keysym);
    if (e.char && e.keysym >= 0x100 && e.keysym < UNICODE_KEYSYM_BASE && !t.legacyByChar.has(e.char)) {
      t.legacyByChar.set(e.char, e.keysym);
    }
  }
  tables = t;
  return t;
}

function fail(name: string): never {
  throw badKey(name);
}

function badKey(name: string): DeskError {
  const hint = "use xdotool key names: Return, Tab, Page_Down, F5, a …";
  return new DeskError("bad_key", `unknown key "${name}" (${hint})`);
}
