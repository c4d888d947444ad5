// Temporary directories that go away with the test file: each one is removed in an afterAll
// hook this module registers in every file that imports it. A test run must leave nothing in
// the temp directory (scripts/test.sh checks).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the temp directory, named `<prefix>XXXXXX`, removed after the file's tests. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
