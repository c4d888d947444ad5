import { appendFile, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { closeSync, constants, openSync, readFileSync, readSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globToRegExp, HistoryStore } from "../../../src/kernel/history.js";

let home: string;
let file: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deskbook-history-"));
  file = join(home, "history.jsonl");
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Opens a store per session in turn, as successive kernel restarts would. */
async function sessions(...inputs: string[][]): Promise<HistoryStore> {
  let store: HistoryStore | undefined;
  for (const cells of inputs) {
    store = await HistoryStore.open(home);
    cells.forEach((input, i) => store!.record(i + 1, input));
  }
  return HistoryStore.open(home);
}

async function fileLines(): Promise<unknown[]> {
  const text = await readFile(file, "utf8");
  return text.trimEnd().split("\n").map((l) => JSON.parse(l));
}

/** Everything waiting in a non-blocking pipe. */
function drain(fd: number): string {
  const chunks: Buffer[] = [];
  const chunk = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") break;
      throw err;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString("utf8");
}

describe("HistoryStore persistence", () => {
  it("starts at session 1 in an empty home and creates it if needed", async () => {
    const nested = join(home, "new", "home");
    const store = await HistoryStore.open(nested);
    expect(store.session).toBe(1);
    expect(store.tail(10, false)).toEqual([]);
    expect((await stat(nested)).mode & 0o777).toBe(0o700);
  });

  it("numbers sessions across restarts and keeps earlier entries", async () => {
    const first = await HistoryStore.open(home);
    first.record(1, "a = 1");
    first.record(2, "a + 1");
    first.recordOutput(2, "2");

    const second = await HistoryStore.open(home);
    expect(second.session).toBe(2);
    second.record(1, "b");

    const third = await HistoryStore.open(home);
    expect(third.session).toBe(3);
    expect(third.tail(10, true)).toEqual([
      [1, 1, ["a = 1", null]],
      [1, 2, ["a + 1", "2"]],
      [2, 1, ["b", null]],
    ]);
  });

  it("appends one JSON line per record, in call order, before returning", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "x\ny");
    expect(await fileLines()).toEqual([{ session: 1, line: 1, input: "x\ny" }]);
    store.recordOutput(1, "out");
    store.record(2, "z");
    expect(await fileLines()).toEqual([
      { session: 1, line: 1, input: "x\ny" },
      { session: 1, line: 1, input: "x\ny", output: "out" },
      { session: 1, line: 2, input: "z" },
    ]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("skips corrupt and malformed lines but uses their neighbours", async () => {
    const lines = [
      JSON.stringify({ session: 4, line: 1, input: "good" }),
      "{not json",
      JSON.stringify({ session: "9", line: 1, input: "string session" }),
      JSON.stringify({ session: 9, line: 1.5, input: "fractional line" }),
      JSON.stringify({ session: 9, line: 1, input: 42 }),
      JSON.stringify({ session: 9, line: 1, input: "bad output", output: 1 }),
      JSON.stringify([7, 1, "array"]),
      "null",
      "",
      JSON.stringify({ session: 4, line: 2, input: "also good", output: "o" }),
    ];
    await writeFile(file, lines.join("\n") + "\n");
    const store = await HistoryStore.open(home);
    expect(store.session).toBe(5);
    expect(store.tail(10, true)).toEqual([
      [4, 1, ["good", null]],
      [4, 2, ["also good", "o"]],
    ]);
  });

  it("starts a fresh line after a write that was cut off mid-line", async () => {
    await writeFile(file, JSON.stringify({ session: 1, line: 1, input: "ok" }) + '\n{"session":1,"line":2,"inp');
    const store = await HistoryStore.open(home);
    expect(store.session).toBe(2);
    store.record(1, "after crash");
    const reopened = await HistoryStore.open(home);
    expect(reopened.tail(5, false)).toEqual([
      [1, 1, "ok"],
      [2, 1, "after crash"],
    ]);
  });

  it("lets a later line for the same cell supersede an earlier one", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "first");
    store.recordOutput(1, "1");
    store.record(1, "second");
    expect(store.tail(5, true)).toEqual([[1, 1, ["second", null]]]);
    store.recordOutput(1, "2");
    store.recordOutput(1, "3");
    const reopened = await HistoryStore.open(home);
    expect(reopened.tail(5, true)).toEqual([[1, 1, ["second", "3"]]]);
  });

  it("sees an output at once and writes it at the end of the turn, after the reply that turn sends", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "6 * 7");
    store.recordOutput(1, "42");
    expect(store.tail(1, true)).toEqual([[1, 1, ["6 * 7", "42"]]]);
    const now = () => readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as unknown);
    expect(now()).toEqual([{ session: 1, line: 1, input: "6 * 7" }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(now()).toEqual([
      { session: 1, line: 1, input: "6 * 7" },
      { session: 1, line: 1, input: "6 * 7", output: "42" },
    ]);
    expect((await HistoryStore.open(home)).tail(1, true)).toEqual([[1, 1, ["6 * 7", "42"]]]);
  });

  it("ignores output for a line that was never recorded", async () => {
    const store = await HistoryStore.open(home);
    store.recordOutput(7, "orphan");
    expect(store.tail(5, true)).toEqual([]);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it("keeps entries in memory and reports when the file cannot be written", async () => {
    const errors: Error[] = [];
    const store = await HistoryStore.open(home, { onWriteError: (e) => errors.push(e) });
    // A directory in the file's place fails the append even for root.
    await mkdir(file);
    store.record(1, "kept");
    store.record(2, "also kept");
    // Reported once: the user hears it one time, not at every cell.
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["EISDIR"]);
    expect(store.tail(5, false)).toEqual([
      [1, 1, "kept"],
      [1, 2, "also kept"],
    ]);
  });

  it("writes again once the file can take it: a failed write lets go of the file and the next one opens it anew", async () => {
    const errors: Error[] = [];
    const store = await HistoryStore.open(home, { onWriteError: (e) => errors.push(e) });
    // Opens (a device takes writes) and then fails the write itself: ENOSPC through an open handle.
    await symlink("/dev/full", file);
    store.record(1, "lost on disk");
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["ENOSPC"]);
    await rm(file);
    store.record(2, "on disk again");
    expect(await fileLines()).toEqual([{ session: 1, line: 2, input: "on disk again" }]);
  });

  it("follows a history.jsonl renamed or removed mid-session: later lines go to a new file at the path", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "before");
    await rename(file, `${file}.old`);
    store.record(2, "after the rename");
    expect(await fileLines()).toEqual([{ session: 1, line: 2, input: "after the rename" }]);
    await rm(file);
    store.record(3, "after the removal");
    expect(await fileLines()).toEqual([{ session: 1, line: 3, input: "after the removal" }]);
    expect(JSON.parse(await readFile(`${file}.old`, "utf8"))).toEqual({ session: 1, line: 1, input: "before" });
  });

  it("starts the next line afresh when a write was cut short mid-line", async () => {
    const errors: Error[] = [];
    const store = await HistoryStore.open(home, { onWriteError: (e) => errors.push(e) });
    // A pipe that takes only part of a write stands in for a disk filling up mid-line.
    execFileSync("mkfifo", [file]);
    const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      store.record(1, "x".repeat(256 * 1024));
      expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["EAGAIN"]);
      const fragment = drain(reader);
      expect(fragment.length).toBeGreaterThan(0);
      expect(fragment.endsWith("\n")).toBe(false);
      store.record(2, "next");
      expect(drain(reader)).toBe(`\n${JSON.stringify({ session: 1, line: 2, input: "next" })}\n`);
    } finally {
      closeSync(reader);
    }
  });

  it("close() writes the output still waiting for the end of the turn", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "6 * 7");
    store.recordOutput(1, "42");
    store.close();
    // Read at once, synchronously: the turn's own flush has not had a chance to run.
    const lines = () => readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as unknown);
    expect(lines()).toEqual([
      { session: 1, line: 1, input: "6 * 7" },
      { session: 1, line: 1, input: "6 * 7", output: "42" },
    ]);
    // A write after close opens the file again.
    store.record(2, "later");
    expect(lines()).toHaveLength(3);
  });

  it("keeps lines in order when recorded out of order", async () => {
    const store = await HistoryStore.open(home);
    store.record(3, "c");
    store.record(1, "a");
    store.record(2, "b");
    expect(store.range(0, 0, null, false)).toEqual([
      [1, 1, "a"],
      [1, 2, "b"],
      [1, 3, "c"],
    ]);
  });
});

describe("tail", () => {
  it("returns the last n entries across sessions, oldest first", async () => {
    const store = await sessions(["a1", "a2"], ["b1", "b2", "b3"]);
    store.record(1, "c1");
    expect(store.tail(3, false)).toEqual([
      [2, 2, "b2"],
      [2, 3, "b3"],
      [3, 1, "c1"],
    ]);
    expect(store.tail(100, false)).toHaveLength(6);
    expect(store.tail(0, false)).toEqual([]);
  });

  it("pairs inputs with outputs when asked", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "1 + 1");
    store.recordOutput(1, "2");
    store.record(2, "print('x')");
    expect(store.tail(2, true)).toEqual([
      [1, 1, ["1 + 1", "2"]],
      [1, 2, ["print('x')", null]],
    ]);
    expect(store.tail(2, false)).toEqual([
      [1, 1, "1 + 1"],
      [1, 2, "print('x')"],
    ]);
  });
});

describe("range", () => {
  let store: HistoryStore;
  beforeEach(async () => {
    store = await sessions(["s1a", "s1b", "s1c"], ["s2a", "s2b"]);
    store.record(1, "cur1");
    store.record(2, "cur2");
    store.record(3, "cur3");
  });

  it("treats session 0 as the current session", () => {
    expect(store.session).toBe(3);
    expect(store.range(0, 1, null, false)).toEqual([
      [3, 1, "cur1"],
      [3, 2, "cur2"],
      [3, 3, "cur3"],
    ]);
  });

  it("treats negative sessions as relative to the current one", () => {
    expect(store.range(-1, 1, null, false)).toEqual([
      [2, 1, "s2a"],
      [2, 2, "s2b"],
    ]);
    expect(store.range(-2, 2, null, false)).toEqual([
      [1, 2, "s1b"],
      [1, 3, "s1c"],
    ]);
    expect(store.range(-3, 0, null, false)).toEqual([]);
  });

  it("takes absolute session numbers and an exclusive stop", () => {
    expect(store.range(1, 1, 3, false)).toEqual([
      [1, 1, "s1a"],
      [1, 2, "s1b"],
    ]);
    expect(store.range(1, 2, 3, true)).toEqual([[1, 2, ["s1b", null]]]);
    expect(store.range(1, 3, 3, false)).toEqual([]);
    expect(store.range(9, 0, null, false)).toEqual([]);
  });
});

describe("search", () => {
  it("matches the whole input against the glob, newest last", async () => {
    const store = await sessions(["app.click()", "let app = 1", "screenshot()"], ["app.type('x')"]);
    expect(store.search("app*", null, false, false)).toEqual([
      [1, 1, "app.click()"],
      [2, 1, "app.type('x')"],
    ]);
    expect(store.search("*app*", null, false, false)).toHaveLength(3);
    expect(store.search("app", null, false, false)).toEqual([]);
    expect(store.search("App*", null, false, false)).toEqual([]);
  });

  it("limits to the n most recent matches", async () => {
    const store = await sessions(["m1", "m2", "x"], ["m3", "m4"]);
    expect(store.search("m?", 3, false, false)).toEqual([
      [1, 2, "m2"],
      [2, 1, "m3"],
      [2, 2, "m4"],
    ]);
    expect(store.search("m?", 0, false, false)).toEqual([]);
  });

  it("with unique, keeps only the most recent occurrence of each input", async () => {
    const store = await sessions(["a", "b", "a"], ["c", "b"]);
    store.record(1, "a");
    expect(store.search("*", null, true, false)).toEqual([
      [2, 1, "c"],
      [2, 2, "b"],
      [3, 1, "a"],
    ]);
    expect(store.search("*", 2, true, false)).toEqual([
      [2, 2, "b"],
      [3, 1, "a"],
    ]);
    expect(store.search("*", 3, false, false)).toEqual([
      [2, 1, "c"],
      [2, 2, "b"],
      [3, 1, "a"],
    ]);
    expect(store.search("*", null, false, false)).toHaveLength(6);
  });

  it("returns outputs when asked", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "6 * 7");
    store.recordOutput(1, "42");
    expect(store.search("6*", null, false, true)).toEqual([[1, 1, ["6 * 7", "42"]]]);
  });

  it("lets * and ? span newlines in multi-line cells", async () => {
    const store = await HistoryStore.open(home);
    store.record(1, "for (;;) {\n  tick();\n}");
    expect(store.search("for*tick*", null, false, false)).toHaveLength(1);
    expect(store.search("for (;;) {?*", null, false, false)).toHaveLength(1);
  });
});

describe("globToRegExp", () => {
  it.each<[string, string, boolean]>([
    ["a*", "abc", true],
    ["a*", "ba", false],
    ["*", "", true],
    ["?", "", false],
    ["?", "é", true],
    ["?", "😀", true],
    ["a?c", "abc", true],
    ["a?c", "abbc", false],
    ["[abc]x", "bx", true],
    ["[abc]x", "dx", false],
    ["[a-c]*", "cat", true],
    ["[a-c]*", "dog", false],
    ["[^a-c]*", "dog", true],
    ["[^a-c]*", "cat", false],
    ["[!a]", "b", true],
    ["[]]", "]", true],
    ["[x-]", "-", true],
    ["[", "[", true],
    ["a[", "a[", true],
    ["f(x).y+$", "f(x).y+$", true],
    ["f(x).y+$", "f(x)zy+$", false],
    ["back\\slash", "back\\slash", true],
    ["[z-a]", "m", false],
  ])("%s on %j -> %s", (glob, input, expected) => {
    expect(globToRegExp(glob).test(input)).toBe(expected);
  });
});

describe("concurrency with the file", () => {
  it("reads entries appended by another writer before open", async () => {
    await appendFile(file, JSON.stringify({ session: 12, line: 3, input: "elsewhere" }) + "\n");
    const store = await HistoryStore.open(home);
    expect(store.session).toBe(13);
    expect(store.range(-1, 0, null, false)).toEqual([[12, 3, "elsewhere"]]);
  });
});
