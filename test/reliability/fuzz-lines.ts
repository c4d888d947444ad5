// Lines for the helper-protocol fuzz, from a seeded PRNG: random bytes, JSON that is no request,
// unknown and prototype-named methods, params with prototype keys, and mutants of valid params
// (wrong types, huge/negative/fractional/non-finite numbers, strings for numbers) drawn from the
// protocol schema and kept only if the schema refuses them. A few valid calls go to the test's
// own app, inside its own window, with keys that cannot close it: the fuzz acts on nothing else.
import { METHOD_NAMES, type MethodName } from "../../src/helper/protocol.js";
import { protocolSchema, validateParams } from "../../src/helper/schema.js";
import { seededPrng } from "../support/prng.js";

export type LineKind = "bytes" | "json" | "unknown" | "proto" | "mutant" | "foreign" | "valid";

export interface FuzzLine {
  kind: LineKind;
  text: string;
  /** The id the reply must carry; null when the helper cannot read one. */
  id: number | string | null;
  method?: string;
  /** The param a mutant broke (its name should be in the message). */
  field?: string;
}

/** What the valid calls may touch: the app under test, its window, and pids that are no concern of it. */
export interface FuzzTarget {
  pid: number;
  windowId: number;
  /** [x, y, width, height] of the window, screen points. */
  frame: [number, number, number, number];
  /** Other users' processes, the helper's own pid, pid 1: the gate must turn them away. */
  foreignPids: number[];
}

const WEIGHTS: Array<[LineKind, number]> = [
  ["bytes", 8],
  ["json", 7],
  ["unknown", 7],
  ["proto", 8],
  ["mutant", 55],
  ["foreign", 5],
  ["valid", 10],
];

/** Reads that change nothing, and acts that stay inside the target's window. */
const VALID_READS = ["ping", "listApps", "resolveApp", "windows", "isActive", "axTree", "hitTest", "elementFrame", "actionNames", "screenshot", "cursor", "makeKey"] as const;
const VALID_ACTS = ["activate", "move", "click", "scroll", "keys", "type", "drag"] as const;
/** Keys galculator reads as digits and operators: none of them quits or closes it. */
const SAFE_KEYS = ["1", "2", "7", "plus", "minus", "BackSpace", "Return", "Escape", "KP_5"];
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "__defineGetter__"];

/** Numbers and non-numbers that break a numeric param somewhere (the schema decides where). */
const BAD_NUMBERS: readonly string[] = ["40000", "-40000", "1e20", "-1e20", "1e308", "1e400", "-1e400", "2.5", "-0.5", "9007199254740993", "4294967296", "-1", "0"];
const BAD_VALUES: readonly string[] = ['"7"', '"1e3"', '""', "null", "true", "[]", "{}", "[1,2]", '{"x":1}', '"NaN"', '"Infinity"'];

export class LineMaker {
  readonly #rand: () => number;
  #nextId = 1;

  constructor(
    seed: number,
    private readonly target: FuzzTarget,
  ) {
    this.#rand = seededPrng(seed).next;
  }

  next(): FuzzLine {
    const kind = this.#weighted();
    switch (kind) {
      case "bytes":
        return { kind, text: this.#bytes(), id: null };
      case "json":
        return this.#json();
      case "unknown":
        return this.#unknown();
      case "proto":
        return this.#proto();
      case "mutant":
        return this.#mutant();
      case "foreign":
        return this.#foreign();
      case "valid":
        return this.#valid();
    }
  }

  // ——— kinds ———

  #bytes(): string {
    const length = 1 + this.#int(300);
    const bytes = Buffer.alloc(length);
    for (let k = 0; k < length; k++) bytes[k] = this.#int(256);
    // A newline would split it into two lines; a blank line is ignored (no reply).
    let text = bytes.toString("latin1").replace(/[\n\r]/g, "x");
    if (text.trim() === "") text = `${text}#`;
    // A leading "{" that happens to parse is fine too: it is still no request.
    return text;
  }

  #json(): FuzzLine {
    const id = this.#id();
    const raw = JSON.stringify(id);
    const choices: Array<[string, number | string | null]> = [
      ["[]", null],
      ["[1,2,3]", null],
      ["42", null],
      ['"hello"', null],
      ["null", null],
      ["{}", null],
      [`{"id":${raw}}`, id],
      [`{"id":${raw},"method":""}`, id],
      [`{"id":${raw},"method":7}`, id],
      [`{"id":${raw},"method":"ping","params":[]}`, id],
      [`{"id":${raw},"method":"ping","params":"x"}`, id],
      [`{"id":${raw},"method":"ping","step":5}`, id],
      [`{"id":{"a":1},"method":"ping"}`, null],
      [`{"id":1.5,"method":"ping"}`, null],
      [`{"id":[${raw}],"method":"ping"}`, null],
      [`{"id":${raw},"method":"ping"`, null],
    ];
    const [text, replyId] = this.#pick(choices);
    return { kind: "json", text, id: replyId };
  }

  #unknown(): FuzzLine {
    const id = this.#id();
    const names = [...PROTO_KEYS, "_script", "Ping", "listapps", "exec", "shutdown", "hello ", "\u0000", "x".repeat(500), this.#word()];
    const method = this.#pick(names);
    return { kind: "unknown", text: JSON.stringify({ id, method, params: {} }), id, method };
  }

  /** A known method whose params carry a prototype key (written by hand: an object literal would not keep `__proto__`). */
  #proto(): FuzzLine {
    const id = this.#id();
    const method = this.#method();
    const params = JSON.stringify(this.#validParams(method)).slice(1, -1);
    const key = this.#pick(PROTO_KEYS);
    const value = this.#pick(['{"polluted":true}', "1", '"x"', "null", '{"pid":1}']);
    const body = params ? `{${params},"${key}":${value}}` : `{"${key}":${value}}`;
    return { kind: "proto", text: `{"id":${JSON.stringify(id)},"method":"${method}","params":${body}}`, id, method, field: key };
  }

  /** Valid params with one field broken; kept only when the schema refuses the result. */
  #mutant(): FuzzLine {
    for (;;) {
      const id = this.#id();
      const method = this.#method();
      const params = this.#validParams(method);
      const fields = Object.keys(params);
      if (fields.length === 0) continue;
      const field = this.#pick(fields);
      const replacement = this.#rand() < 0.6 ? this.#pick(BAD_NUMBERS) : this.#pick(BAD_VALUES);
      const text = `{"id":${JSON.stringify(id)},"method":"${method}","params":${withField(params, field, replacement)}}`;
      if (validateParams(method, JSON.parse(text).params).ok) continue;
      return { kind: "mutant", text, id, method, field };
    }
  }

  #foreign(): FuzzLine {
    const id = this.#id();
    const pid = this.#pick(this.target.foreignPids);
    const method = this.#pick(["activate", "windows", "axTree", "click", "type", "keys", "screenshot"] as const);
    const params = { ...this.#validParamsFor(method), pid };
    return { kind: "foreign", text: JSON.stringify({ id, method, params }), id, method };
  }

  #valid(): FuzzLine {
    const id = this.#id();
    const method = this.#rand() < 0.7 ? this.#pick(VALID_READS) : this.#pick(VALID_ACTS);
    const params = this.#validParamsFor(method);
    return { kind: "valid", text: JSON.stringify({ id, method, params }), id, method };
  }

  // ——— valid params ———

  /** Params the schema accepts, aimed at the target (any method; used as the base of mutants). */
  #validParams(method: MethodName): Record<string, unknown> {
    if ((VALID_READS as readonly string[]).includes(method) || (VALID_ACTS as readonly string[]).includes(method)) {
      return this.#validParamsFor(method as (typeof VALID_READS)[number]);
    }
    const { pid, windowId } = this.target;
    const index = this.#int(50);
    const table: Partial<Record<MethodName, Record<string, unknown>>> = {
      hello: { client: "fuzz", protocol: 1 },
      permissions: {},
      launch: { name: "galculator" },
      performAction: { pid, index: 1_000_000 + index, action: "AXPress" },
      setValue: { pid, index: 1_000_000 + index, value: "1" },
      focusElement: { pid, index: 1_000_000 + index },
      selectText: { pid, index: 1_000_000 + index, start: 0, length: 1 },
      forget: { pid: this.#pick(this.target.foreignPids) },
      makeKey: { pid, windowId },
    };
    return table[method] ?? {};
  }

  #validParamsFor(method: (typeof VALID_READS)[number] | (typeof VALID_ACTS)[number]): Record<string, unknown> {
    const { pid, windowId } = this.target;
    const [x, y] = this.#inside();
    switch (method) {
      case "ping":
      case "listApps":
      case "cursor":
        return {};
      case "resolveApp":
        return { query: this.#pick(["galculator", "GALCULATOR", `pid:${pid}`, "no-such-app", "/usr/bin/galculator"]) };
      case "windows":
      case "isActive":
      case "activate":
        return { pid };
      case "axTree":
        return { pid, maxNodes: 1 + this.#int(40), maxDepth: this.#int(6) };
      case "hitTest":
      case "move":
        return { pid, x, y };
      case "elementFrame":
      case "actionNames":
        return { pid, index: this.#int(400) };
      case "screenshot":
        return { pid, windowId, width: 1 + this.#int(64), height: 1 + this.#int(64), format: this.#pick(["png", "jpeg"]) };
      case "makeKey":
        return { pid, windowId };
      case "click":
        return { pid, x, y, count: 1 + this.#int(2) };
      case "scroll":
        return { pid, x, y, dy: this.#int(5) - 2 };
      case "keys":
        return { pid, chords: [{ key: this.#pick(SAFE_KEYS), mods: [] }] };
      case "type":
        return { pid, text: this.#pick(["12", "3+4", "", "9", "\u00e9"]) };
      case "drag": {
        const [x2, y2] = this.#inside();
        return { pid, path: [[x, y], [x2, y2]] };
      }
    }
  }

  /** A point well inside the target's window (its menus and title bar left out). */
  #inside(): [number, number] {
    const [fx, fy, w, h] = this.target.frame;
    return [Math.round(fx + w * (0.2 + 0.6 * this.#rand())), Math.round(fy + h * (0.45 + 0.45 * this.#rand()))];
  }

  // ——— draws ———

  #weighted(): LineKind {
    const total = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
    let draw = this.#rand() * total;
    for (const [kind, weight] of WEIGHTS) {
      draw -= weight;
      if (draw < 0) return kind;
    }
    return "mutant";
  }

  #method(): MethodName {
    return this.#pick(METHOD_NAMES.filter((m) => m !== "hello" && hasParams(m)));
  }

  #id(): number | string {
    const id = this.#nextId++;
    return this.#rand() < 0.2 ? `s${id}` : id;
  }

  #word(): string {
    return Array.from({ length: 1 + this.#int(12) }, () => String.fromCharCode(97 + this.#int(26))).join("");
  }

  #int(below: number): number {
    return Math.floor(this.#rand() * below);
  }

  #pick<T>(items: readonly T[]): T {
    return items[this.#int(items.length)]!;
  }
}

/** The params object as JSON with one field's value replaced by raw JSON text. */
function withField(params: Record<string, unknown>, field: string, raw: string): string {
  const parts = Object.entries(params).map(([k, v]) => `${JSON.stringify(k)}:${k === field ? raw : JSON.stringify(v)}`);
  return `{${parts.join(",")}}`;
}

function hasParams(method: MethodName): boolean {
  return `${method}.params` in protocolSchema().definitions;
}
