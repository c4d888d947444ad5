// Shared fixtures for the executor tests: a temporary notebook directory with
// local modules and a node_modules tree (CommonJS, ESM-only, scoped packages),
// and a vm session wired the way the executor's runner wires it.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";
import { createModuleLoader } from "../../src/executor/module-loader.js";
import { rewriteCell } from "../../src/executor/rewrite.js";
import { createSessionContext } from "../../src/executor/context-runner.js";

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

export interface Session {
  context: vm.Context;
  /** The context's global object, as completion and inspection receive it. */
  global: Record<string, unknown>;
  /** Rewrites and runs one cell; settles with the cell's value. */
  run(source: string): Promise<unknown>;
}

export function createSession(baseDir: string): Session {
  const loader = createModuleLoader(baseDir);
  const context = createSessionContext();
  const global = vm.runInContext("globalThis", context) as Record<string, unknown>;
  // Enumerable, unlike V8's own `console` on a fresh global, so tests can tell them from hidden names.
  for (const [name, value] of Object.entries({ console, setTimeout, clearTimeout })) {
    Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: true });
  }
  Object.defineProperty(global, "__deskbook__", {
    value: { import: (specifier: string) => loader.import(specifier) },
    enumerable: false,
  });
  let count = 0;
  const run = async (source: string): Promise<unknown> => {
    const { code, columnOffset } = rewriteCell(source);
    const script = new vm.Script(code, { filename: `cell-${++count}`, columnOffset, importModuleDynamically: undefined });
    return settle(script.runInContext(context, { breakOnSigint: true }) as Promise<unknown>, context);
  };
  return { context, global, run };
}

const drain = new vm.Script("");

/**
 * With microtaskMode "afterEvaluate" the context's microtask queue only runs
 * at the end of a runInContext call, so continuations woken by the host
 * (timers, host promises) wait until something drains it. The handlers are
 * attached with `.then` right away: `await`ing a settled context promise from
 * the host would itself queue a job on the context's queue.
 */
function settle<T>(promise: Promise<T>, context: vm.Context): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let pending = true;
    promise.then(
      (value) => {
        pending = false;
        resolve(value);
      },
      (error: unknown) => {
        pending = false;
        reject(error);
      },
    );
    const pump = (): void => {
      if (!pending) return;
      drain.runInContext(context);
      setTimeout(pump, 1);
    };
    setImmediate(pump);
  });
}
