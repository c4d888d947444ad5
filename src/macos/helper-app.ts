// Where the macOS helper's app bundle lives, where its Swift source is, and whether the
// bundle is current.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HELPER_EXECUTABLE, HELPER_NAME, stampedSourceHash } from "./info-plist.js";
import { helperSourceHash } from "./source-hash.js";

export interface HelperAppPaths {
  /** $DESKBOOK_HOME/Deskbook Helper.app */
  app: string;
  infoPlist: string;
  executable: string;
}

export function helperAppPaths(home: string): HelperAppPaths {
  const app = join(home, `${HELPER_NAME}.app`);
  return {
    app,
    infoPlist: join(app, "Contents", "Info.plist"),
    executable: join(app, "Contents", "MacOS", HELPER_EXECUTABLE),
  };
}

/**
 * helper/macos in the package this file belongs to. Found by walking up, because this module
 * runs both from src/macos (tests) and from dist/src/macos (the CLI). Undefined if the package
 * was installed without it.
 */
export function helperSourceDir(start: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, "helper", "macos");
    if (existsSync(join(candidate, "Package.swift"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

export type HelperAppState =
  | { state: "missing"; paths: HelperAppPaths }
  | { state: "stale"; paths: HelperAppPaths; builtFrom: string | undefined; sourceHash: string }
  | { state: "current"; paths: HelperAppPaths; sourceHash: string | undefined };

/**
 * Missing, stale (built from other source), or current. Without the source to compare
 * (`sourceHash` undefined), a built bundle counts as current.
 */
export function helperAppState(paths: HelperAppPaths, sourceHash: string | undefined): HelperAppState {
  if (!existsSync(paths.executable) || !existsSync(paths.infoPlist)) return { state: "missing", paths };
  const builtFrom = stampedSourceHash(readFileSync(paths.infoPlist, "utf8"));
  if (sourceHash !== undefined && builtFrom !== sourceHash) return { state: "stale", paths, builtFrom, sourceHash };
  return { state: "current", paths, sourceHash };
}

/** The state of the bundle under `home` against the Swift source shipped with this package. */
export function currentHelperAppState(home: string, sourceDir: string | undefined = helperSourceDir()): HelperAppState {
  return helperAppState(helperAppPaths(home), sourceDir ? helperSourceHash(sourceDir) : undefined);
}
