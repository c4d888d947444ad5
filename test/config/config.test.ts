import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { utimesSync, writeFileSync } from "node:fs";
import {
  ConfigError,
  currentConfig,
  DEFAULT_CONFIG,
  loadConfig,
  loadConfigWithWarnings,
  parseConfig,
} from "../../src/config/config.js";
import { deskbookHome, ensureHome } from "../../src/config/home.js";

const SRC = "/home/u/.deskbook/config.json";

function parseError(text: string): ConfigError {
  try {
    parseConfig(text, SRC);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${text}`);
}

describe("DEFAULT_CONFIG", () => {
  it("is the table of defaults in docs/api.md, key for key", async () => {
    const api = await readFile(fileURLToPath(new URL("../../docs/api.md", import.meta.url)), "utf8");
    const documented = new Map([...api.matchAll(/^\| `([\w.]+)` \| `([^`]+)` \|/gm)].map((m) => [m[1]!, JSON.parse(m[2]!) as unknown]));
    const leaves = Object.entries(DEFAULT_CONFIG).flatMap(([key, value]): [string, unknown][] =>
      typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0
        ? Object.entries(value).map(([inner, v]): [string, unknown] => [`${key}.${inner}`, v])
        : [[key, value]],
    );
    expect(Object.fromEntries(leaves)).toEqual(Object.fromEntries(documented));
  });

  it("is frozen all the way down, and parsed configs are independent copies", () => {
    expect(Object.isFrozen(DEFAULT_CONFIG)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG.screenshot)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG.allow)).toBe(true);
    const { config } = parseConfig("{}", SRC);
    config.allow.push("Finder");
    const quality = DEFAULT_CONFIG.screenshot.quality;
    config.screenshot.quality = quality + 1;
    expect(DEFAULT_CONFIG.allow).toEqual([]);
    expect(DEFAULT_CONFIG.screenshot.quality).toBe(quality);
  });
});

describe("parseConfig", () => {
  it("returns the defaults for an empty object", () => {
    expect(parseConfig("{}", SRC)).toEqual({ config: DEFAULT_CONFIG, warnings: [] });
  });

  it("takes every key from the file when all are given", () => {
    const full = {
      approval: "allowlist",
      allow: ["Safari", "TextEdit"],
      deny: ["Terminal"],
      grant: "act",
      confirm: "ask",
      apps: { mousepad: { grant: "read-only" }, Mail: { confirm: "off", grant: "full" } },
      input: "foreground",
      foregroundApps: ["Figma"],
      cursor: false,
      screenshot: { maxLongSide: 1024, maxPixels: 500000, format: "jpeg", quality: 55 },
      ax: { maxNodes: 100, maxDepth: 5, maxTextLength: 40 },
      log: { enabled: false, text: true },
      clipboard: { read: true, write: false },
      mcp: { maxImageBytes: 100000, attachTimeoutMs: 5000, attachProbeTimeoutMs: 2500 },
      timeoutMs: 5000,
      settleMs: 0,
      freshApps: true,
      desktop: "per-kernel",
    };
    expect(parseConfig(JSON.stringify(full), SRC)).toEqual({ config: full, warnings: [] });
  });

  it("merges nested objects key by key", () => {
    const { config } = parseConfig('{"screenshot": {"quality": 50}, "log": {"text": true}}', SRC);
    expect(config.screenshot).toEqual({ ...DEFAULT_CONFIG.screenshot, quality: 50 });
    expect(config.log).toEqual({ ...DEFAULT_CONFIG.log, text: true });
    expect(config.ax).toEqual(DEFAULT_CONFIG.ax);
  });

  it("replaces arrays and scalars instead of merging them", () => {
    const { config } = parseConfig('{"allow": ["Notes"], "deny": [], "timeoutMs": 1}', SRC);
    expect(config.allow).toEqual(["Notes"]);
    expect(config.deny).toEqual([]);
    expect(config.timeoutMs).toBe(1);
    expect(config.approval).toBe("ask");
  });

  it("checks grant, confirm and every apps entry, naming the key at fault", () => {
    expect(parseError('{"grant": "write"}').key).toBe("grant");
    expect(parseError('{"confirm": true}').message).toContain('"ask", "off"');
    expect(parseError('{"apps": {"mousepad": "read-only"}}').key).toBe("apps.mousepad");
    expect(parseError('{"apps": {"mousepad": {"grant": "none"}}}').key).toBe("apps.mousepad.grant");
    expect(parseConfig('{"apps": {"mousepad": {"grnt": "act"}}}', SRC).warnings).toEqual([
      `${SRC}: unknown key "apps.mousepad.grnt" ignored (did you mean "apps.mousepad.grant"?)`,
    ]);
  });

  it("accepts a UTF-8 byte order mark", () => {
    expect(parseConfig('\uFEFF{"cursor": false}', SRC).config.cursor).toBe(false);
  });

  it("reports JSON syntax errors with the path, position and a fix", () => {
    const err = parseError('{\n  "approval": "ask",\n}');
    expect(err.code).toBe("bad_config");
    expect(err.name).toBe("ConfigError");
    expect(err.source).toBe(SRC);
    expect(err.message).toContain(SRC);
    expect(err.message).toContain("not valid JSON");
    expect(err.message).toMatch(/line 3, column 1/);
    expect(err.message).toMatch(/no trailing commas/);
  });

  it("locates truncated JSON at its end", () => {
    const err = parseError('{"a": 1');
    expect(err.message).toMatch(/line 1, column 8/);
  });

  it.each([
    ["[]", /JSON object/],
    ["null", /found null/],
    ['"ask"', /found the string "ask"/],
  ])("rejects a top level of %s", (text, pattern) => {
    expect(parseError(text).message).toMatch(pattern);
  });

  it.each<[string, unknown, string, RegExp]>([
    ["approval", "maybe", "approval", /one of "ask", "allowlist", "allow-all", found the string "maybe"/],
    ["input", "fg", "input", /one of "background", "foreground", found the string "fg"/],
    ["allow", "Safari", "allow", /an array of strings, found the string "Safari"/],
    ["deny", ["ok", 3], "deny", /an array of strings, found an array \(\["ok",3\]\)/],
    ["foregroundApps", null, "foregroundApps", /an array of strings, found null/],
    ["cursor", "yes", "cursor", /a boolean \(true or false\), found the string "yes"/],
    ["timeoutMs", 0, "timeoutMs", /positive number of milliseconds.*found number 0/],
    ["timeoutMs", -5, "timeoutMs", /found number -5/],
    ["timeoutMs", "120000", "timeoutMs", /found the string "120000"/],
    ["timeoutMs", 2 ** 31, "timeoutMs", /at most 2147483647/],
    ["settleMs", -1, "settleMs", /from 0 to .*found number -1/],
    ["freshApps", "yes", "freshApps", /true or false|boolean/],
    ["desktop", "own", "desktop", /one of "shared", "per-kernel", found the string "own"/],
    ["screenshot", 5, "screenshot", /an object, found number 5/],
    ["screenshot", [], "screenshot", /an object, found an array/],
    ["log", true, "log", /an object, found boolean true/],
  ])("rejects %s = %j", (key, value, errKey, pattern) => {
    const err = parseError(JSON.stringify({ [key]: value }));
    expect(err.code).toBe("bad_config");
    expect(err.key).toBe(errKey);
    expect(err.message).toContain(`"${errKey}" must be`);
    expect(err.message).toMatch(pattern);
    expect(err.message).toContain(SRC);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["screenshot", { quality: 0 }, "screenshot.quality", /an integer from 1 to 100, found number 0/],
    ["screenshot", { quality: 101 }, "screenshot.quality", /found number 101/],
    ["screenshot", { quality: 50.5 }, "screenshot.quality", /found number 50.5/],
    ["screenshot", { format: "webp" }, "screenshot.format", /one of "png", "jpeg", found the string "webp"/],
    ["screenshot", { maxPixels: 1.5 }, "screenshot.maxPixels", /a positive integer, found number 1.5/],
    ["ax", { maxDepth: 0 }, "ax.maxDepth", /a positive integer, found number 0/],
    ["ax", { maxNodes: {} }, "ax.maxNodes", /found an object/],
    ["log", { text: "no" }, "log.text", /a boolean .*found the string "no"/],
  ])("rejects nested %s %j", (section, value, errKey, pattern) => {
    const err = parseError(JSON.stringify({ [section]: value }));
    expect(err.key).toBe(errKey);
    expect(err.message).toMatch(pattern);
  });

  it("accepts the edges of each range", () => {
    const text = '{"screenshot": {"quality": 1}, "timeoutMs": 2147483647, "settleMs": 0}';
    const { config } = parseConfig(text, SRC);
    expect([config.screenshot.quality, config.timeoutMs, config.settleMs]).toEqual([1, 2147483647, 0]);
    expect(parseConfig('{"screenshot": {"quality": 100}}', SRC).config.screenshot.quality).toBe(100);
  });

  it("ignores unknown keys but reports them, with a guess for typos", () => {
    const text = JSON.stringify({ aproval: "allow-all", theme: "dark", ax: { maxNode: 3, depthLimit: 2 } });
    const { config, warnings } = parseConfig(text, SRC);
    expect(config).toEqual(DEFAULT_CONFIG);
    expect(warnings).toEqual([
      `${SRC}: unknown key "aproval" ignored (did you mean "approval"?)`,
      `${SRC}: unknown key "theme" ignored`,
      `${SRC}: unknown key "ax.maxNode" ignored (did you mean "ax.maxNodes"?)`,
      `${SRC}: unknown key "ax.depthLimit" ignored`,
    ]);
  });
});

describe("loadConfig", () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-config-"));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("uses the defaults when config.json is missing", () => {
    expect(loadConfigWithWarnings(home)).toEqual({ config: DEFAULT_CONFIG, warnings: [] });
    expect(loadConfig(home)).toEqual(DEFAULT_CONFIG);
  });

  it("reads config.json from the home directory", async () => {
    await writeFile(join(home, "config.json"), '{"approval": "allow-all", "extra": 1}');
    const loaded = loadConfigWithWarnings(home);
    expect(loaded.config.approval).toBe("allow-all");
    expect(loaded.warnings).toEqual([`${join(home, "config.json")}: unknown key "extra" ignored`]);
    expect(loadConfig(home).approval).toBe("allow-all");
  });

  it("names the file in syntax errors", async () => {
    const path = join(home, "config.json");
    await writeFile(path, "{ approval: ask }");
    expect(() => loadConfig(home)).toThrow(ConfigError);
    expect(() => loadConfig(home)).toThrow(`${path}: not valid JSON`);
  });

  it("turns an unreadable config.json into a ConfigError", async () => {
    await mkdir(join(home, "config.json"));
    expect(() => loadConfig(home)).toThrow(/cannot read the config file/);
  });
});

describe("currentConfig", () => {
  let home: string;
  let path: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-config-"));
    path = join(home, "config.json");
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /** Writes config.json and dates it `agoMs` back, as a file written that long ago would be. */
  function writeAged(text: string, agoMs: number): void {
    writeFileSync(path, text);
    const then = new Date(Date.now() - agoMs);
    utimesSync(path, then, then);
  }

  it("answers the defaults without a file, and the file once it appears", () => {
    expect(currentConfig(home)).toEqual(DEFAULT_CONFIG);
    writeAged('{"timeoutMs": 500}', 5_000);
    expect(currentConfig(home).timeoutMs).toBe(500);
  });

  it("reads a settled file once, and again after any change", () => {
    writeAged('{"timeoutMs": 500}', 5_000);
    const first = currentConfig(home);
    expect(currentConfig(home)).toBe(first);
    expect(Object.isFrozen(first.screenshot)).toBe(true);
    // Same size, same content length: only the stamp tells the files apart.
    writeAged('{"timeoutMs": 700}', 4_000);
    expect(currentConfig(home).timeoutMs).toBe(700);
  });

  it("rereads a file written within the last second at every call: a same-size write in the same clock tick could leave the same stamp", () => {
    writeFileSync(path, '{"timeoutMs": 500}');
    const first = currentConfig(home);
    expect(first.timeoutMs).toBe(500);
    expect(currentConfig(home)).not.toBe(first);
    expect(currentConfig(home)).toEqual(first);
  });

  it("throws at every call while the file is bad, and recovers when it is fixed", () => {
    writeAged("{ nope", 5_000);
    expect(() => currentConfig(home)).toThrow(ConfigError);
    expect(() => currentConfig(home)).toThrow(ConfigError);
    writeAged('{"timeoutMs": 42}', 3_000);
    expect(currentConfig(home).timeoutMs).toBe(42);
  });
});

describe("deskbookHome", () => {
  it("defaults to ~/.deskbook", () => {
    expect(deskbookHome({ HOME: "/home/ada" })).toBe("/home/ada/.deskbook");
  });

  it("honours DESKBOOK_HOME, expanding ~ and resolving relative paths", () => {
    expect(deskbookHome({ HOME: "/home/ada", DESKBOOK_HOME: "/srv/db" })).toBe("/srv/db");
    expect(deskbookHome({ HOME: "/home/ada", DESKBOOK_HOME: "~/db" })).toBe("/home/ada/db");
    expect(deskbookHome({ HOME: "/home/ada", DESKBOOK_HOME: "rel/db" })).toBe(resolve("rel/db"));
    expect(deskbookHome({ HOME: "/home/ada", DESKBOOK_HOME: "" })).toBe("/home/ada/.deskbook");
  });
});

describe("ensureHome", () => {
  it("creates missing parents with mode 0700 and tolerates an existing dir", async () => {
    const base = await mkdtemp(join(tmpdir(), "deskbook-home-"));
    try {
      const home = join(base, "a", "b");
      await ensureHome(home);
      await ensureHome(home);
      expect((await stat(home)).isDirectory()).toBe(true);
      expect((await stat(home)).mode & 0o777).toBe(0o700);
      expect((await stat(join(base, "a"))).mode & 0o777).toBe(0o700);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
