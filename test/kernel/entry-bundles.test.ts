/**
 * The kernel and the executor run from the bundles `npm run build` makes of tsc's output
 * (scripts/bundle.mjs). What a cell sees must be what it saw from the separate files: modules
 * resolve from the notebook's directory, paths found from a module's own URL (package.json,
 * docs/api.md) still resolve, and tracebacks show the cell's lines and none of Deskbook's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";

const BUNDLE_MARK = "made by scripts/bundle.mjs";

let dir: string;
let kernel: RunningKernel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "deskbook-bundles-"));
  // A notebook directory with its own package (ESM only, `exports`), a CommonJS file and data.
  const pkg = join(dir, "node_modules", "notebook-local-pkg");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "notebook-local-pkg", type: "module", exports: { ".": "./main.js" } }));
  writeFileSync(join(pkg, "main.js"), "export const where = 'notebook node_modules';\n");
  writeFileSync(join(dir, "helper.cjs"), "module.exports = { where: __dirname };\n");
  writeFileSync(join(dir, "data.json"), JSON.stringify({ rows: 3 }));
  kernel = await startKernel({ cwd: dir });
});
afterAll(async () => {
  await kernel?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the kernel and the executor from their bundles", () => {
  it("are what the build leaves in dist: one file of Deskbook's modules each", () => {
    for (const entry of ["dist/src/cli/main.js", "dist/src/executor/main.js"]) {
      expect(readFileSync(join(REPO_ROOT, entry), "utf8")).toContain(BUNDLE_MARK);
    }
  });

  it("resolve a cell's imports and requires from the notebook's directory", async () => {
    const cell = [
      "import { where } from 'notebook-local-pkg';",
      "import data from './data.json';",
      "const local = require('./helper.cjs');",
      "JSON.stringify([where, data.rows, local.where, require.resolve('notebook-local-pkg')])",
    ].join("\n");
    const { reply, iopub } = await kernel.client.execute(cell);
    expect(reply.content.status).toBe("ok");
    const [where, rows, helperDir, resolved] = JSON.parse((resultText(iopub) ?? "").slice(1, -1)) as [string, number, string, string];
    expect(where).toBe("notebook node_modules");
    expect(rows).toBe(3);
    expect(helperDir).toBe(dir);
    expect(resolved).toBe(join(dir, "node_modules", "notebook-local-pkg", "main.js"));
  });

  it("find their files from each module's own place: the version from package.json, help() from docs/api.md", async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    expect(resultText((await kernel.client.execute("deskbook.version")).iopub)).toBe(`'${version}'`);
    const { reply, iopub } = await kernel.client.execute("help('getApp')");
    expect(reply.content.status).toBe("ok");
    const shown = JSON.stringify(iopub.map((m) => m.content));
    expect(shown).toContain("getApp");
  });

  it("point a traceback of an error from Deskbook's own code at the cell's line, with none of the bundle's frames", async () => {
    const { reply } = await kernel.client.execute("const first = 1;\nawait desk.getApp(42);");
    expect(reply.content).toMatchObject({ status: "error", ename: "TypeError" });
    const count = reply.content.execution_count as number;
    const traceback = (reply.content.traceback as string[]).join("\n");
    expect(traceback).toContain(`cell-${count}:2:`);
    expect(traceback).not.toMatch(/dist\/src|bundle-|node:internal/);
  });
});
