/**
 * package.json's "dependencies" are exactly what the product (src/, the Linux helper) imports:
 * a package only tests or the bench need belongs in devDependencies, so an install without them
 * (`npm ci --omit=dev`) does not ship it, and a product import of one would break that install.
 */
import { readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PRODUCT = ["src", "helper/linux"];

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** "@scope/name/sub" → "@scope/name", "name/sub" → "name"; undefined for relative paths and Node's own modules. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || isBuiltin(specifier)) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Each package the product imports (statically, dynamically or by type), with the first file that does. */
function productImports(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of PRODUCT.flatMap((dir) => typescriptFiles(join(ROOT, dir)))) {
    // The compiler's own scanner: comments and strings that look like imports do not count.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
    for (const { fileName } of importedFiles) {
      const name = packageOf(fileName);
      if (name && !found.has(name)) found.set(name, relative(ROOT, file));
    }
  }
  return found;
}

describe("package.json dependencies", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const imports = productImports();

  it("hold every package the product imports", () => {
    const missing = [...imports].filter(([name]) => !(name in manifest.dependencies)).map(([name, file]) => `${name} (imported by ${file})`);
    expect(missing).toEqual([]);
  });

  it("hold nothing the product does not import", () => {
    expect(Object.keys(manifest.dependencies).filter((name) => !imports.has(name))).toEqual([]);
  });
});
