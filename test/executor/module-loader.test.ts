import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModuleLoader, type ModuleLoader } from "../../src/executor/module-loader.js";
import { createFixture, type Fixture } from "./fixtures.js";

let fixture: Fixture;
let loader: ModuleLoader;

beforeAll(() => {
  fixture = createFixture();
  loader = createModuleLoader(fixture.notebookDir);
});
afterAll(() => fixture.remove());

describe("createModuleLoader().import", () => {
  it("loads builtins with and without the node: prefix", async () => {
    const withPrefix = (await loader.import("node:path")) as typeof import("node:path");
    const bare = (await loader.import("path")) as typeof import("node:path");
    expect(withPrefix.join).toBe(path.join);
    expect(bare.join).toBe(path.join);
  });

  it("resolves relative paths against the notebook directory", async () => {
    expect(await loader.import("./lib.mjs")).toMatchObject({ answer: 42, default: "lib-default" });
    expect(await loader.import("./legacy.cjs")).toMatchObject({ default: { kind: "cjs" } });
  });

  it("adds CommonJS extensions when the exact file is missing", async () => {
    expect(await loader.import("./helper")).toMatchObject({ default: { helper: true } });
  });

  it("accepts absolute paths and file URLs", async () => {
    const file = path.join(fixture.notebookDir, "lib.mjs");
    expect(await loader.import(file)).toMatchObject({ answer: 42 });
    expect(await loader.import(pathToFileURL(file).href)).toMatchObject({ answer: 42 });
  });

  it("loads JSON", async () => {
    expect(await loader.import("./data.json")).toMatchObject({ default: { x: 1 } });
  });

  it("finds CommonJS packages in a parent directory's node_modules", async () => {
    const pkg = (await loader.import("cjs-pkg")) as { name: string; default: { name: string } };
    expect(pkg.default.name).toBe("cjs-pkg");
    expect(pkg.name).toBe("cjs-pkg");
  });

  it("finds ESM-only packages that createRequire cannot resolve", async () => {
    expect(() => createRequire(path.join(fixture.notebookDir, "x.js")).resolve("esm-only")).toThrow();
    const esm = (await loader.import("esm-only")) as { default: string; kind: string };
    expect([esm.default, esm.kind]).toEqual(["esm-default", "esm"]);
    expect(await loader.import("esm-only/sub")).toHaveProperty("hello");
    expect(await loader.import("esm-only/features/fast")).toMatchObject({ feature: "fast" });
  });

  it("finds scoped packages with a string exports field", async () => {
    expect(await loader.import("@scope/pkg")).toMatchObject({ scoped: true });
  });

  it.each([
    ["no-such-package"],
    ["./missing.mjs"],
    ["esm-only/not-exported"],
    ["cjs-pkg/nope"],
  ])("fails with ERR_MODULE_NOT_FOUND for %s", async (specifier) => {
    const error = await loader.import(specifier).catch((e: unknown) => e as Error & { code?: string });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
    expect((error as Error).message).toContain(specifier);
    expect((error as Error).message).toContain(fixture.notebookDir);
  });

  it("treats a path through a file as missing", async () => {
    const throughFile = path.join(fixture.notebookDir, "data.json", "inside");
    await expect(loader.import(throughFile)).rejects.toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });

  it("propagates errors thrown while a found module loads", async () => {
    await expect(loader.import("./throws.mjs")).rejects.toThrow("module failed while loading");
  });
});

describe("createModuleLoader().require", () => {
  it("requires relative to the notebook directory", () => {
    expect(loader.require("./helper")).toEqual({ helper: true });
    expect(loader.require("cjs-pkg")).toMatchObject({ name: "cjs-pkg" });
    expect(loader.require.resolve("./legacy.cjs")).toBe(path.join(fixture.notebookDir, "legacy.cjs"));
  });
});
