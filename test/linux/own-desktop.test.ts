// Whether the helper counts its display as Deskbook's own desktop: only by a record whose
// display is its own and whose runtime dir still stands, this user's.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { desktopStatePath } from "../../src/desktop/virtual-desktop.js";
import { ownDesktop } from "../../helper/linux/own-desktop.js";

describe("ownDesktop", () => {
  let home: string;
  let runtimeDir: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "deskbook-own-desktop-"));
    runtimeDir = mkdtempSync(join(home, "run-"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const record = (state: Record<string, unknown>): void => writeFileSync(desktopStatePath(home), JSON.stringify(state));
  const env = (display: string): NodeJS.ProcessEnv => ({ DESKBOOK_HOME: home, DISPLAY: display });

  it("is the recorded desktop when the display is its own", () => {
    record({ display: ":97", runtimeDir });
    expect(ownDesktop(env(":97"))).toEqual({ display: ":97", runtimeDir });
    expect(ownDesktop(env(":98"))).toBeUndefined();
    expect(ownDesktop({ DESKBOOK_HOME: home })).toBeUndefined();
  });

  it("is no desktop when the record's runtime dir is gone, or is not a directory", () => {
    record({ display: ":97", runtimeDir: join(home, "gone") });
    expect(ownDesktop(env(":97"))).toBeUndefined();
    const file = join(home, "a-file");
    writeFileSync(file, "");
    record({ display: ":97", runtimeDir: file });
    expect(ownDesktop(env(":97"))).toBeUndefined();
  });

  it("is no desktop without a record, or with one it cannot read", () => {
    expect(ownDesktop(env(":97"))).toBeUndefined();
    writeFileSync(desktopStatePath(home), "{");
    expect(ownDesktop(env(":97"))).toBeUndefined();
  });
});
