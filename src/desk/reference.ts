import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { documented, type Doc } from "../doc.js";

/**
 * The reference a cell's `help()` prints is docs/api.md itself, so the page and the
 * command can never disagree. Each `### name(…)` heading is one entry.
 */
export interface Entry {
  name: string;
  heading: string;
  summary: string;
  body: string;
}

let cache: Entry[] | undefined;

export function reference(): Entry[] {
  cache ??= parseReference(readFileSync(findApiDoc(), "utf8"));
  return cache;
}

export function parseReference(markdown: string): Entry[] {
  const entries: Entry[] = [];
  const sections = markdown.split(/^### /m).slice(1);
  for (const section of sections) {
    const [heading = "", ...rest] = section.split("\n");
    const plain = heading.replace(/`/g, "").trim();
    const name = /([A-Za-z_$][\w$]*)\s*\(/.exec(plain)?.[1] ?? plain.split(".").pop()!;
    const body = rest.join("\n").split(/^## /m)[0]!.trim();
    const summary = body.split(/\n\s*\n/)[0]!.replace(/\s+/g, " ").trim();
    entries.push({ name, heading: plain, summary, body });
  }
  return entries;
}

/** `help()` → the index; `help("click")` → that entry. */
export function helpText(name?: string): string {
  const entries = reference();
  if (name === undefined) {
    const width = Math.max(...entries.map((e) => e.heading.length));
    const lines = entries.map((e) => `${e.heading.padEnd(width)}  ${firstSentence(e.summary)}`);
    return ["Deskbook reference (help(\"name\") for one entry; docs/api.md has it all):", "", ...lines].join("\n");
  }
  const wanted = String(name).replace(/^.*\./, "").replace(/\(.*$/, "");
  const entry = entries.find((e) => e.name === wanted);
  if (!entry) return `No entry "${name}". help() lists them all.`;
  return `${entry.heading}\n\n${entry.body}`;
}

/** Attaches the docs/api.md entry of each named member to it, for Jupyter's inspect. */
export function documentMembers(target: object, names: string[]): void {
  const entries = new Map(reference().map((e) => [e.name, e]));
  for (const name of names) {
    const member = memberValue(target, name);
    const entry = entries.get(name);
    if (typeof member === "function" && entry) documented(member, toDoc(entry));
  }
}

/** The member names docs/api.md documents for an object written `prefix.name` there (`app`, `desk`). */
export function apiMembers(prefix: string): string[] {
  const names = reference()
    .map((e) => new RegExp(`^${prefix}\\.([A-Za-z_$][\\w$]*)`).exec(e.heading)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)];
}

/** The doc of an object itself: what it is, then one line per documented member. */
export function objectDoc(prefix: string, signature: string, summary: string): Doc {
  const lines = reference()
    .filter((e) => e.heading.startsWith(`${prefix}.`))
    .map((e) => `- \`${e.heading}\` — ${firstSentence(e.summary)}`);
  return { signature, summary, details: lines.join("\n") };
}

/** A method found on `target` or its prototypes, without running getters. */
function memberValue(target: object, name: string): unknown {
  for (let current: object | null = target; current !== null; current = Object.getPrototypeOf(current) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(current, name);
    if (descriptor) return descriptor.value;
  }
  return undefined;
}

function toDoc(entry: Entry): Doc {
  return { signature: entry.heading, summary: entry.summary, details: entry.body };
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

function findApiDoc(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, "docs", "api.md");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("docs/api.md not found next to the Deskbook install");
}
