// Module loading for cells. vm Scripts cannot `import`, so the rewritten cells
// call `__deskbook__.import(specifier)`, which resolves the specifier the way
// a module sitting in the notebook's directory would and imports it natively.
//
// Bare packages are resolved by walking node_modules and reading package.json
// `exports` ourselves: createRequire().resolve only knows the `require`
// condition and fails on ESM-only packages.

import * as fs from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface ModuleLoader {
  /** Resolves like an ES module in the notebook's directory; resolves to the module namespace. */
  import(specifier: string): Promise<object>;
  /** CommonJS `require` rooted at the notebook's directory. */
  require: NodeRequire;
}

/** Conditions of an `import` from Node, in no particular priority (package order decides). */
const CONDITIONS: ReadonlySet<string> = new Set(["node", "import", "module-sync", "default"]);

type Target = { kind: "builtin"; id: string } | { kind: "url"; url: string } | { kind: "file"; file: string };

export function createModuleLoader(baseDir: string): ModuleLoader {
  const base = path.resolve(baseDir);
  const require = createRequire(path.join(base, "<notebook>"));
  return {
    require,
    import: async (specifier: string): Promise<object> => load(resolveSpecifier(specifier, base, require)),
  };
}

async function load(target: Target): Promise<object> {
  switch (target.kind) {
    case "builtin":
      return (await import(target.id)) as object;
    case "url":
      return (await import(target.url)) as object;
    case "file": {
      const url = pathToFileURL(target.file).href;
      // ESM refuses JSON without the attribute; a notebook user just wants the data.
      const options: ImportCallOptions | undefined = target.file.endsWith(".json") ? { with: { type: "json" } } : undefined;
      return (await import(url, options)) as object;
    }
  }
}

function resolveSpecifier(specifier: string, base: string, require: NodeRequire): Target {
  if (specifier.startsWith("node:") || isBuiltin(specifier)) return { kind: "builtin", id: specifier };
  if (specifier.startsWith("data:")) return { kind: "url", url: specifier };
  if (specifier.startsWith("file:")) return fileTarget(specifier, resolvePath(fileURLToPath(specifier), require), base);
  if (isPathLike(specifier)) return fileTarget(specifier, resolvePath(path.resolve(base, specifier), require), base);
  return fileTarget(specifier, resolvePackage(specifier, base) ?? requireResolve(specifier, require), base);
}

function fileTarget(specifier: string, file: string | undefined, base: string): Target {
  if (file === undefined) throw notFound(specifier, base);
  return { kind: "file", file };
}

function isPathLike(specifier: string): boolean {
  return /^\.\.?(?:[/\\]|$)/.test(specifier) || path.isAbsolute(specifier);
}

/** An exact file, else CommonJS-style extension and directory-index lookup. */
function resolvePath(file: string, require: NodeRequire): string | undefined {
  return isFile(file) ? file : requireResolve(file, require);
}

function requireResolve(request: string, require: NodeRequire): string | undefined {
  try {
    const resolved = require.resolve(request);
    return path.isAbsolute(resolved) ? resolved : undefined;
  } catch {
    return undefined;
  }
}

/** Node's lookup: the first node_modules/<name> up from `base` decides. */
function resolvePackage(specifier: string, base: string): string | undefined {
  const parsed = parsePackageSpecifier(specifier);
  if (!parsed) return undefined;
  for (let dir = base; ; dir = path.dirname(dir)) {
    const packageDir = path.join(dir, "node_modules", parsed.name);
    if (isDirectory(packageDir)) return resolveInPackage(packageDir, parsed.subpath);
    if (path.dirname(dir) === dir) return undefined;
  }
}

function parsePackageSpecifier(specifier: string): { name: string; subpath: string } | undefined {
  const match = /^((?:@[^/\\%]+\/)?[^./\\%][^/\\%]*)(\/.*)?$/.exec(specifier);
  if (!match) return undefined;
  return { name: match[1]!, subpath: `.${match[2] ?? ""}` };
}

function resolveInPackage(packageDir: string, subpath: string): string | undefined {
  const manifest = readManifest(packageDir);
  if (manifest?.exports !== undefined && manifest.exports !== null) {
    const file = resolveExports(packageDir, manifest.exports, subpath);
    return file !== undefined && isFile(file) ? file : undefined;
  }
  if (subpath !== ".") return resolveLegacy(path.join(packageDir, subpath));
  const main = typeof manifest?.main === "string" ? path.join(packageDir, manifest.main) : undefined;
  return (main && resolveLegacy(main)) || resolveLegacy(path.join(packageDir, "index"));
}

interface Manifest {
  main?: unknown;
  exports?: unknown;
}

function readManifest(packageDir: string): Manifest | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as Manifest) : undefined;
  } catch {
    return undefined;
  }
}

/** `main`-style lookup for packages without `exports`. */
function resolveLegacy(file: string): string | undefined {
  for (const candidate of [file, `${file}.js`, `${file}.mjs`, `${file}.cjs`, `${file}.json`]) {
    if (isFile(candidate)) return candidate;
  }
  if (!isDirectory(file)) return undefined;
  const manifest = readManifest(file);
  const main = typeof manifest?.main === "string" ? resolveLegacy(path.join(file, manifest.main)) : undefined;
  return main ?? resolveLegacy(path.join(file, "index"));
}

/** PACKAGE_EXPORTS_RESOLVE, restricted to what `import()` from Node needs. */
function resolveExports(packageDir: string, exports: unknown, subpath: string): string | undefined {
  const map = isSubpathMap(exports) ? exports : { ".": exports };
  if (Object.hasOwn(map, subpath) && !subpath.includes("*")) return resolveTarget(packageDir, map[subpath], "");
  const pattern = bestPattern(Object.keys(map), subpath);
  return pattern ? resolveTarget(packageDir, map[pattern.key], pattern.match) : undefined;
}

function isSubpathMap(exports: unknown): exports is Record<string, unknown> {
  if (typeof exports !== "object" || exports === null || Array.isArray(exports)) return false;
  return Object.keys(exports).some((key) => key.startsWith("."));
}

/** The `./dir/*` key with the longest prefix matching `subpath`, and what `*` stands for. */
function bestPattern(keys: string[], subpath: string): { key: string; match: string } | undefined {
  let best: { key: string; match: string } | undefined;
  for (const key of keys) {
    const star = key.indexOf("*");
    if (star < 0 || star !== key.lastIndexOf("*")) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    const fits = subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length;
    if (fits && (!best || prefix.length > best.key.indexOf("*"))) {
      best = { key, match: subpath.slice(prefix.length, subpath.length - suffix.length) };
    }
  }
  return best;
}

function resolveTarget(packageDir: string, target: unknown, match: string): string | undefined {
  if (typeof target === "string") {
    return target.startsWith("./") ? path.join(packageDir, target.replace(/\*/g, match)) : undefined;
  }
  if (Array.isArray(target)) {
    for (const alternative of target) {
      const resolved = resolveTarget(packageDir, alternative, match);
      if (resolved !== undefined) return resolved;
    }
    return undefined;
  }
  if (typeof target !== "object" || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (!CONDITIONS.has(condition)) continue;
    const resolved = resolveTarget(packageDir, value, match);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

function notFound(specifier: string, base: string): Error & { code: string } {
  const error = new Error(`Cannot find module '${specifier}' imported from the notebook directory ${base}`);
  return Object.assign(error, { code: "ERR_MODULE_NOT_FOUND" });
}

function isFile(file: string): boolean {
  return stat(file)?.isFile() ?? false;
}

function isDirectory(file: string): boolean {
  return stat(file)?.isDirectory() ?? false;
}

/** Undefined for anything unreadable, e.g. ENOTDIR for a path through a file. */
function stat(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
