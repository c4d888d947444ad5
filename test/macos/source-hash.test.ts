// The helper's source hash: stable for the same source, different when a Swift file changes.
import { cp, readdir, writeFile, appendFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { helperSourceDir } from "../../src/macos/helper-app.js";
import { helperSourceHash } from "../../src/macos/source-hash.js";
import { tempDir } from "../support/temp-dir.js";

const REAL = fileURLToPath(new URL("../../helper/macos/", import.meta.url));

describe("helperSourceHash", () => {
  let copy: string;
  beforeEach(async () => {
    copy = join(await tempDir("deskbook-hash-"), "macos");
    await cp(REAL, copy, { recursive: true });
  });

  it("is the same for the same source, wherever it lies", () => {
    const hash = helperSourceHash(REAL);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(helperSourceHash(REAL)).toBe(hash);
    expect(helperSourceHash(copy)).toBe(hash);
  });

  it("changes when a Swift file under Sources changes, is added, or Package.swift changes", async () => {
    const before = helperSourceHash(copy);
    await appendFile(join(copy, "Sources", "DeskbookHelper", "main.swift"), "\n// changed\n");
    const edited = helperSourceHash(copy);
    expect(edited).not.toBe(before);
    await writeFile(join(copy, "Sources", "DeskbookHelperCore", "Extra.swift"), "let extra = 1\n");
    expect(helperSourceHash(copy)).not.toBe(edited);
    const added = helperSourceHash(copy);
    await appendFile(join(copy, "Package.swift"), "\n");
    expect(helperSourceHash(copy)).not.toBe(added);
  });

  it("ignores what is not built into the helper: README, tests, build output", async () => {
    const before = helperSourceHash(copy);
    await appendFile(join(copy, "README.md"), "\nmore words\n");
    await appendFile(join(copy, "Tests", "DeskbookHelperCoreTests", (await readdir(join(copy, "Tests", "DeskbookHelperCoreTests")))[0]!), "\n// x\n");
    await writeFile(join(copy, "Sources", "DeskbookHelper", "notes.txt"), "not swift");
    expect(helperSourceHash(copy)).toBe(before);
  });

  it("tells a renamed file from the same text under its old name", async () => {
    const before = helperSourceHash(copy);
    const dir = join(copy, "Sources", "DeskbookHelper");
    await cp(join(dir, "Input.swift"), join(dir, "Input2.swift"));
    await rm(join(dir, "Input.swift"));
    expect(helperSourceHash(copy)).not.toBe(before);
  });

  it("finds helper/macos from this package's source tree", () => {
    expect(helperSourceDir()).toBe(REAL.replace(/\/$/, ""));
  });
});
