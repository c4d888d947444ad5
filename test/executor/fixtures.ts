// Shared fixtures for the executor tests: a temporary notebook directory with
// local modules and a node_modules tree (CommonJS, ESM-only, scoped packages),
// and the executor's own JavaScript session, run cell by cell.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Session } from "../../src/executor/session.js";

export interface Fixture {
  /** Holds node_modules; the notebook directory is one level below, so lookup must walk up. */
  root: string;
  notebookDir: string;
  remove(): void;
}

const FILES: Record<string, string> = {
  "package.json": `{ "name": "fixture-root", "type": "commonjs" }`,
  "notebook/lib.mjs": `export const answer = 42;\nexport default "lib-default";\n`,
  "notebook/helper.js": `module.exports = { helper: true };\n`,
  "notebook/legacy.cjs": `module.exports = { kind: "cjs" };\n`,
  "notebook/data.json": `{ "x": 1 }\n`,
  "notebook/throws.mjs": `throw new Error("module failed while loading");\n`,
  "notebook/side-effect.mjs": `globalThis.__fixtureSideEffects = (globalThis.__fixtureSideEffects ?? 0) + 1;\n`,
  "node_modules/cjs-pkg/package.json": `{ "name": "cjs-pkg", "main": "lib/index.js" }`,
  "node_modules/cjs-pkg/lib/index.js": `exports.name = "cjs-pkg";\nexports.pick = function pick(o, k) { return o[k]; };\n`,
  "node_modules/esm-only/package.json": JSON.stringify({
    name: "esm-only",
    type: "module",
    exports: {
      ".": { import: "./index.js" },
      "./sub": { import: "./sub.js" },
      "./features/*": { import: "./features/*.js" },
      "./package.json": "./package.json",
    },
  }),
  "node_modules/esm-only/index.js": `export default "esm-default";\nexport const kind = "esm";\n`,
  "node_modules/esm-only/sub.js": `export function hello() { return "hello from sub"; }\n`,
  "node_modules/esm-only/features/fast.js": `export const feature = "fast";\n`,
  "node_modules/@scope/pkg/package.json": `{ "name": "@scope/pkg", "exports": "./main.mjs" }`,
  "node_modules/@scope/pkg/main.mjs": `export const scoped = true;\n`,
};

export function createFixture(): Fixture {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "deskbook-executor-")));
  for (const [file, content] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return { root, notebookDir: path.join(root, "notebook"), remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** The executor's Session (no desk globals), with cells run by value rather than by outcome. */
export interface CellRunner {
  /** The context's global object, as completion and inspection receive it. */
  global: Record<string, unknown>;
  /** Rewrites and runs one cell (`cell-1`, `cell-2` …); settles with the cell's value, or rejects with its error. */
  run(source: string): Promise<unknown>;
}

export function createSession(baseDir: string): CellRunner {
  const session = new Session(() => undefined, { baseDir });
  let count = 0;
  return { global: session.global, run: (source) => session.evaluate(source, ++count) };
}
