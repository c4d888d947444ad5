// The fingerprint of the Swift helper's source: setup rebuilds when it changes, and the
// client refuses to launch an app built from other source (after an upgrade, say).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** sha256 over helper/macos/Package.swift and every .swift file under Sources/, by relative path. */
export function helperSourceHash(sourceDir: string): string {
  const files = ["Package.swift", ...swiftFiles(sourceDir, join(sourceDir, "Sources"))];
  const hash = createHash("sha256");
  for (const file of files) {
    const content = readFileSync(join(sourceDir, file));
    // Name and length go in too, so renaming or moving text between files changes the hash.
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest("hex");
}

/** Relative paths with "/" separators, sorted, so the hash is the same on every machine. */
function swiftFiles(root: string, dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...swiftFiles(root, path));
    else if (entry.isFile() && entry.name.endsWith(".swift")) found.push(relative(root, path).split(sep).join("/"));
  }
  return found.sort();
}
