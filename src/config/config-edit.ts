// Edits of config.json by Deskbook itself ("Always allow", `deskbook allow|deny`), keeping
// every other key as it was. Written to a temporary file and renamed, so a crash never
// leaves half a config behind.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE } from "./config.js";
import { makeDirsSync } from "../make-dirs.js";

/** Appends `name` to config.json's allow list (unless it is there already); the file ends up 0600. */
export function addToAllow(home: string, name: string): void {
  addToList(home, "allow", name);
}

/** Appends `name` to the `allow` or `deny` list of config.json, once (case-insensitively). */
export function addToList(home: string, list: "allow" | "deny", name: string): void {
  const path = join(home, CONFIG_FILE);
  const config = readObject(path);
  const entries = Array.isArray(config[list]) ? (config[list] as unknown[]) : [];
  if (!entries.some((entry) => typeof entry === "string" && entry.toLowerCase() === name.toLowerCase())) entries.push(name);
  config[list] = entries;
  makeDirsSync(home, 0o700);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

function readObject(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return {};
  }
  const parsed: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${path} is not a JSON object; not changing it`);
  }
  return parsed as Record<string, unknown>;
}
