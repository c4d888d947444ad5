// Drives a helper with fuzz lines over several connections at once and checks every reply:
// one per line, a valid envelope, a known error code or a result the schema accepts, and for a
// line the helper must refuse, bad_request. Then every method is called once on a fresh
// connection to show nothing is wedged.
import { createConnection, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { encodeLine, LineSplitter } from "../../src/helper/json-lines.js";
import { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION } from "../../src/helper/protocol.js";
import { validateEnvelope, validateResult } from "../../src/helper/schema.js";
import { LineMaker, type FuzzLine, type FuzzTarget, type LineKind } from "./fuzz-lines.js";

export interface FuzzOptions {
  socketPath: string;
  seed: number;
  lines: number;
  connections: number;
  /** Lines in flight per connection. */
  window: number;
  target: FuzzTarget;
  /** A reply later than this counts as a wedge. */
  replyTimeoutMs: number;
}

export interface FuzzReport {
  sent: number;
  replies: number;
  byKind: Record<LineKind, number>;
  results: number;
  /** "code" → count. */
  codes: Record<string, number>;
  /** Lines the helper had to refuse that got something other than bad_request. */
  notRefused: string[];
  /** Mutants whose message names the broken param. */
  namedField: number;
  mutants: number;
  /** Replies that break the protocol (bad envelope, unknown code, result the schema refuses). */
  violations: string[];
  /** Lines with no reply within replyTimeoutMs. */
  unanswered: string[];
  /** Refused with bad_request, or (allowed too) the connection closed. */
  overlong: { sent: number; refused: number; closed: number };
  elapsedMs: number;
}

const MUST_REFUSE: ReadonlySet<LineKind> = new Set(["bytes", "json", "unknown", "proto", "mutant"]);
const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: { code: string; message: string };
  event?: string;
}

/** One connection with hello said; replies by id, and id-null replies in arrival order. */
class FuzzConnection {
  readonly #splitter = new LineSplitter(MAX_LINE_BYTES + 1024);
  readonly #waiting = new Map<string, (reply: Reply) => void>();
  readonly #anonymous: Array<(reply: Reply) => void> = [];
  readonly stray: Reply[] = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on("close", () => (this.closed = true));
    socket.on("data", (chunk: Buffer) => {
      for (const line of this.#splitter.push(chunk)) this.#deliver(JSON.parse(line) as Reply);
    });
    socket.on("error", () => undefined);
  }

  static async open(path: string): Promise<FuzzConnection> {
    const socket = createConnection(path);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const conn = new FuzzConnection(socket);
    const hello = await conn.send({ kind: "valid", id: "hello", text: JSON.stringify({ id: "hello", method: "hello", params: { client: "fuzz", protocol: PROTOCOL_VERSION } }) }, 10_000);
    if (!hello || hello.error) throw new Error(`hello failed: ${JSON.stringify(hello)}`);
    return conn;
  }

  /** Sends the line; resolves with its reply, or null after `timeoutMs`. */
  send(line: Pick<FuzzLine, "id" | "text" | "kind">, timeoutMs: number): Promise<Reply | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (line.id !== null) this.#waiting.delete(key(line.id));
        else this.#anonymous.splice(this.#anonymous.indexOf(done), 1);
        resolve(null);
      }, timeoutMs);
      const done = (reply: Reply): void => {
        clearTimeout(timer);
        resolve(reply);
      };
      if (line.id !== null) this.#waiting.set(key(line.id), done);
      else this.#anonymous.push(done);
      this.socket.write(`${line.text}\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  #deliver(reply: Reply): void {
    if (reply.event !== undefined && reply.id === undefined) return; // an escape or stop event
    if (reply.id === null || reply.id === undefined) {
      const next = this.#anonymous.shift();
      if (next) next(reply);
      else this.stray.push(reply);
      return;
    }
    const waiter = this.#waiting.get(key(reply.id as string | number));
    if (waiter) {
      this.#waiting.delete(key(reply.id as string | number));
      waiter(reply);
    } else this.stray.push(reply);
  }
}

function key(id: string | number): string {
  return `${typeof id}:${id}`;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const began = performance.now();
  const maker = new LineMaker(options.seed, options.target);
  const lines = Array.from({ length: options.lines }, () => maker.next());
  const report: FuzzReport = {
    sent: 0,
    replies: 0,
    byKind: { bytes: 0, json: 0, unknown: 0, proto: 0, mutant: 0, foreign: 0, valid: 0 },
    results: 0,
    codes: {},
    notRefused: [],
    namedField: 0,
    mutants: 0,
    violations: [],
    unanswered: [],
    overlong: { sent: 0, refused: 0, closed: 0 },
    elapsedMs: 0,
  };
  const connections = await Promise.all(Array.from({ length: options.connections }, () => FuzzConnection.open(options.socketPath)));
  try {
    await Promise.all(connections.map((conn, n) => drive(conn, lines.filter((_, k) => k % options.connections === n), options, report)));
    for (const conn of connections) for (const stray of conn.stray) report.violations.push(`a reply nothing asked for: ${JSON.stringify(stray).slice(0, 200)}`);
    await overlong(options, report);
  } finally {
    for (const conn of connections) conn.close();
  }
  report.elapsedMs = performance.now() - began;
  return report;
}

/** Keeps `window` lines in flight on one connection until its share is sent and answered. */
async function drive(conn: FuzzConnection, lines: FuzzLine[], options: FuzzOptions, report: FuzzReport): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < lines.length) {
      const line = lines[next++]!;
      report.sent++;
      report.byKind[line.kind]++;
      check(line, await conn.send(line, options.replyTimeoutMs), report);
    }
  };
  await Promise.all(Array.from({ length: options.window }, worker));
}

function check(line: FuzzLine, reply: Reply | null, report: FuzzReport): void {
  const what = `${line.kind} ${line.text.slice(0, 160)}`;
  if (reply === null) return void report.unanswered.push(what);
  report.replies++;
  const envelope = validateEnvelope("Reply", reply);
  if (!envelope.ok) return void report.violations.push(`${what}: ${envelope.message}`);
  if (reply.error) {
    report.codes[reply.error.code] = (report.codes[reply.error.code] ?? 0) + 1;
    if (!CODES.has(reply.error.code)) report.violations.push(`${what}: unknown code ${reply.error.code}`);
    if (MUST_REFUSE.has(line.kind) && reply.error.code !== "bad_request") report.notRefused.push(`${what}: ${reply.error.code}`);
    if (line.kind === "mutant") {
      report.mutants++;
      if (line.field && reply.error.message.includes(line.field)) report.namedField++;
    }
    return;
  }
  report.results++;
  if (MUST_REFUSE.has(line.kind) || line.kind === "foreign") report.notRefused.push(`${what}: answered with a result`);
  const valid = line.method ? validateResult(line.method, reply.result) : { ok: true as const };
  if (!valid.ok) report.violations.push(`${what}: ${valid.message}`);
}

/** Lines over the 16 MiB bound, each on a connection of its own (a helper may close it). */
async function overlong(options: FuzzOptions, report: FuzzReport): Promise<void> {
  for (const filler of ["x", "{"]) {
    const conn = await FuzzConnection.open(options.socketPath);
    try {
      report.overlong.sent++;
      const reply = await conn.send({ kind: "bytes", id: null, text: filler.repeat(MAX_LINE_BYTES + 10) }, 30_000);
      if (reply?.error?.code === "bad_request") report.overlong.refused++;
      else if (conn.closed) report.overlong.closed++;
    } finally {
      conn.close();
    }
  }
}

/** Every method once on a fresh connection: the time each took, or null when it did not answer. */
export async function everyMethodAnswers(
  socketPath: string,
  calls: ReadonlyArray<[string, Record<string, unknown>]>,
  timeoutMs: number,
): Promise<Array<{ method: string; ms: number | null; code: string | null }>> {
  const conn = await FuzzConnection.open(socketPath);
  try {
    const out: Array<{ method: string; ms: number | null; code: string | null }> = [];
    for (const [n, [method, params]] of calls.entries()) {
      const t0 = performance.now();
      const reply = await conn.send({ kind: "valid", id: `after${n}`, text: encodeLine({ id: `after${n}`, method, params }).trimEnd() }, timeoutMs);
      out.push({ method, ms: reply ? performance.now() - t0 : null, code: reply?.error?.code ?? null });
    }
    return out;
  } finally {
    conn.close();
  }
}
