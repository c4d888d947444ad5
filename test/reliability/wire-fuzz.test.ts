/**
 * Wire fuzz: 10 000 hostile multipart messages on shell, control and stdin of a real kernel,
 * from real zeromq DEALER sockets. Every code string in them would set a marker if it ran.
 * Afterwards: nothing ran, nothing crashed, every authenticated request with bad content got
 * its error reply, and the kernel still answers kernel_info and runs a cell.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as zmq from "zeromq";
import { v4 as uuidv4 } from "uuid";
import { startKernel, resultText, type RunningKernel } from "../support/kernel-process.js";
import { seededPrng, type Prng } from "../support/prng.js";
import { endpoint } from "../../src/jupyter/connection.js";
import { Signer } from "../../src/jupyter/signing.js";
import { DELIMITER } from "../../src/jupyter/framing.js";
import { printTable, type Row } from "../../bench/report.js";

const MESSAGES = 10_000;
const MAX_MESSAGE_BYTES = 64 * 1024;
const MARKER = "globalThis.__fuzzRan = (globalThis.__fuzzRan ?? 0) + 1";
type Channel = "shell" | "control" | "stdin";
const CHANNELS: readonly Channel[] = ["shell", "control", "stdin"];

/** One fuzz message: its frames, and the reply it must get (if any). */
interface Case {
  kind: string;
  channel: Channel;
  frames: Buffer[];
  /** The msg_id an error reply must name as its parent. */
  expectErrorReply?: string;
}

let kernel: RunningKernel;
let signer: Signer;
const dealers = new Map<Channel, zmq.Dealer>();
const replies = new Map<string, Record<string, unknown>>();
let executeInputs = 0;
let iopub: zmq.Subscriber;

beforeAll(async () => {
  kernel = await startKernel({ env: { DESKBOOK_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES) } });
  signer = new Signer(kernel.info.signature_scheme, kernel.info.key);
  for (const channel of CHANNELS) {
    const dealer = new zmq.Dealer({ routingId: `fuzz-${channel}-${uuidv4()}`, linger: 0 });
    dealer.connect(endpoint(kernel.info, kernel.info[`${channel}_port`]));
    dealers.set(channel, dealer);
    void collectReplies(dealer);
  }
  iopub = new zmq.Subscriber({ linger: 0 });
  iopub.connect(endpoint(kernel.info, kernel.info.iopub_port));
  iopub.subscribe();
  void countExecuteInputs(iopub);
  // The kernel runs one cell of its own first, so "nothing ran" is measured from a live executor.
  await kernel.client.execute("const before = 'kept'");
});

afterAll(async () => {
  for (const dealer of dealers.values()) dealer.close();
  iopub?.close();
  await kernel?.stop();
});

async function collectReplies(dealer: zmq.Dealer): Promise<void> {
  await untilClosed(dealer, (frames) => {
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    const parent = JSON.parse(frames[at + 3]!.toString()) as { msg_id?: string };
    const content = JSON.parse(frames[at + 5]!.toString()) as Record<string, unknown>;
    if (parent.msg_id) replies.set(parent.msg_id, content);
  });
}

async function countExecuteInputs(socket: zmq.Subscriber): Promise<void> {
  await untilClosed(socket, (frames) => {
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    const header = JSON.parse(frames[at + 2]!.toString()) as { msg_type?: string };
    if (header.msg_type === "execute_input") executeInputs++;
  });
}

async function untilClosed(socket: zmq.Dealer | zmq.Subscriber, each: (frames: Buffer[]) => void): Promise<void> {
  try {
    for await (const frames of socket) each(frames);
  } catch (error) {
    if (!socket.closed) throw error;
  }
}

function header(msgType: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { msg_id: uuidv4(), session: "fuzz", username: "fuzz", date: new Date().toISOString(), msg_type: msgType, version: "5.3", ...extra };
}

/** Signed frames from already-serialized dict frames (they may be anything). */
function signed(dicts: Buffer[], identities: Buffer[] = [], buffers: Buffer[] = []): Buffer[] {
  return [...identities, DELIMITER, Buffer.from(signer.sign(dicts)), ...dicts, ...buffers];
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** Values of every type but string, several of them holding code that sets the marker if ever run. */
function wrongValue(random: Prng): unknown {
  return random.pick<() => unknown>([
    () => null,
    () => random.int(-1e9, 1e9),
    () => -1,
    () => 1e300,
    () => 0.5,
    () => true,
    () => [MARKER],
    () => ({ code: MARKER }),
    () => JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  ])();
}

/** Content for a known request type with at least one field of the wrong type. */
const BAD_CONTENT: Record<string, (random: Prng) => { content: Record<string, unknown>; field: string }> = {
  execute_request: (r) => {
    const content: Record<string, unknown> = { code: MARKER, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: true };
    const field = r.pick(["code", "silent", "store_history", "user_expressions", "allow_stdin", "stop_on_error", "user_expressions!"]);
    if (field === "user_expressions!") content.user_expressions = { x: r.pick([1, null, [MARKER], { a: MARKER }]) };
    else if (field === "code") content.code = r.pick([null, 42, [MARKER], { toString: MARKER }, true]);
    else content[field] = r.pick(field === "user_expressions" ? [MARKER, 5, [MARKER], null] : [MARKER, 1, "true", null, []]);
    if (field === "code" && r.next() < 0.3) delete content.code;
    return { content, field };
  },
  complete_request: (r) => ({ content: { code: r.pick([MARKER, 42, null]), cursor_pos: r.pick([-1, 0.5, "3", NaN, 1e300, null]) }, field: "cursor_pos" }),
  inspect_request: (r) => ({ content: { code: MARKER, cursor_pos: 3, detail_level: r.pick([2, -1, "1", null, true]) }, field: "detail_level" }),
  is_complete_request: (r) => ({ content: { code: r.pick([42, null, [MARKER], { a: 1 }]) }, field: "code" }),
  history_request: (r) => ({ content: { hist_access_type: r.pick(["tail", "range", "search", "all", 3]), n: r.pick([-5, 1e300, "10", 0.5]), session: r.pick([0, "x"]) }, field: "n" }),
  comm_info_request: (r) => ({ content: { target_name: r.pick([1, [], {}, true]) }, field: "target_name" }),
  comm_open: (r) => ({ content: { comm_id: r.pick([1, null, []]), target_name: "jupyter.widget", data: { code: MARKER } }, field: "comm_id" }),
  shutdown_request: (r) => ({ content: { restart: r.pick(["yes", 1, null, {}]) }, field: "restart" }),
};

function fuzzCase(random: Prng, large: () => Buffer): Case {
  const channel = random.pick(CHANNELS);
  const kind = random.pick(["random frames", "truncated", "bad signature", "missing signature", "invalid JSON", "header types", "content types", "unknown type", "many identities", "oversized frame"]);
  const requestType = random.pick(Object.keys(BAD_CONTENT));
  const good = (): Buffer[] => [json(header(requestType)), json({}), json({}), json(BAD_CONTENT[requestType]!(random).content)];
  switch (kind) {
    case "random frames": {
      const frames = Array.from({ length: random.int(0, 8) }, () => random.bytes(random.int(0, 200)));
      if (random.next() < 0.5) frames.splice(random.int(0, frames.length), 0, DELIMITER);
      return { kind, channel, frames: frames.length ? frames : [Buffer.alloc(0)] };
    }
    case "truncated": {
      const frames = signed(good());
      if (random.next() < 0.5) return { kind, channel, frames: frames.slice(0, random.int(1, frames.length - 1)) };
      const at = random.int(2, frames.length - 1);
      frames[at] = frames[at]!.subarray(0, random.int(0, frames[at]!.length - 1));
      return { kind, channel, frames };
    }
    case "bad signature": {
      const dicts = good();
      const signature = random.pick([
        () => random.bytes(32).toString("hex"),
        () => new Signer("hmac-sha256", "not-the-key").sign(dicts),
        () => signer.sign(dicts).replace(/^./, (c) => (c === "0" ? "1" : "0")),
        () => signer.sign(dicts).toUpperCase(),
        () => signer.sign(dicts).slice(0, 63),
      ])();
      return { kind, channel, frames: [DELIMITER, Buffer.from(signature), ...dicts] };
    }
    case "missing signature":
      return { kind, channel, frames: [DELIMITER, Buffer.alloc(0), ...good()] };
    case "invalid JSON": {
      const dicts = good();
      dicts[random.int(0, 3)] = random.pick([Buffer.from("{"), Buffer.from('{"msg_id":'), Buffer.from([0xff, 0xfe, 0x00]), Buffer.from("null"), Buffer.from("[1,2]"), Buffer.from('"text"'), Buffer.from("123"), Buffer.alloc(0), Buffer.from(`{"code": ${MARKER}}`)]);
      return { kind, channel, frames: signed(dicts) };
    }
    case "header types": {
      const bad = random.pick(["msg_id", "msg_type", "both"]);
      const h = header(bad === "msg_id" ? requestType : wrongValue(random), bad === "msg_type" ? {} : { msg_id: wrongValue(random) });
      if (bad === "msg_type" && random.next() < 0.5) delete h.msg_type;
      return { kind, channel, frames: signed([json(h), json({}), json({}), json({ code: MARKER })]) };
    }
    case "content types": {
      const h = header(requestType, { session: wrongValue(random), username: wrongValue(random), version: random.pick([wrongValue(random), "x".repeat(5000)]) });
      const { content } = BAD_CONTENT[requestType]!(random);
      const parent = random.pick([{}, { msg_id: 5 }, { msg_type: [] }, header("execute_request")]);
      const frames = signed([json(h), json(parent), json(random.pick([{}, { deletedCells: [1] }, { a: MARKER }])), json(content)]);
      return { kind, channel, frames, expectErrorReply: channel === "stdin" || !requestType.endsWith("_request") ? undefined : (h.msg_id as string) };
    }
    case "unknown type": {
      const msgType = random.pick(["", "__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "debug_request", "usage_request", "x".repeat(random.int(1, 20_000)), "🙂_request", "execute_reply", "status", "create_subshell_request"]);
      const h = header(msgType);
      const frames = signed([json(h), json({}), json({}), json({ code: MARKER })]);
      const isRequest = msgType.endsWith("_request") && channel !== "stdin";
      return { kind, channel, frames, expectErrorReply: isRequest ? (h.msg_id as string) : undefined };
    }
    case "many identities": {
      const identities = Array.from({ length: random.int(1, 60) }, () => random.bytes(random.int(0, 40)));
      return { kind, channel, frames: signed(good(), identities, [random.bytes(random.int(0, 100))]) };
    }
    default: {
      // Over the kernel's limit: ZeroMQ drops the frame and the connection it came on.
      return { kind, channel, frames: signed([json(header(requestType)), json({}), json({}), large()]) };
    }
  }
}

describe("wire fuzz", () => {
  it(`survives ${MESSAGES} hostile messages on shell, control and stdin`, async () => {
    const random = seededPrng();
    console.log(`wire fuzz: seed ${random.seed} (DESKBOOK_SEED=${random.seed} replays it)`);
    const large = (): Buffer => Buffer.alloc(MAX_MESSAGE_BYTES + random.int(1, 4096), 0x61);
    executeInputs = 0; // from here on, any execute_input would be a fuzz message's
    const counts = new Map<string, number>();
    const expected: string[] = [];
    const described = new Map<string, string>();
    const started = performance.now();
    for (let i = 0; i < MESSAGES; i++) {
      const fuzz = fuzzCase(random, large);
      counts.set(fuzz.kind, (counts.get(fuzz.kind) ?? 0) + 1);
      if (fuzz.expectErrorReply) expected.push(fuzz.expectErrorReply);
      if (fuzz.expectErrorReply) described.set(fuzz.expectErrorReply, `${fuzz.kind} on ${fuzz.channel}: ${fuzz.frames.slice(-4).map((f) => f.toString().slice(0, 120)).join(" | ")}`);
      if (fuzz.kind === "oversized frame") await sendOnce(fuzz);
      else await dealers.get(fuzz.channel)!.send(fuzz.frames);
    }
    const sentMs = performance.now() - started;
    // Every authenticated request with bad content gets an error reply; wait for the last.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && expected.some((id) => !replies.has(id))) await new Promise((r) => setTimeout(r, 100));
    const missing = expected.filter((id) => !replies.has(id));
    const notErrors = expected.filter((id) => replies.get(id)?.status !== "error");

    const info = await kernel.client.request("shell", "kernel_info_request", {}, { timeoutMs: 10_000 });
    const controlInfo = await kernel.client.request("control", "kernel_info_request", {}, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 200)); // iopub of the last fuzz replies
    const executedDuringFuzz = executeInputs;
    const cell = await kernel.client.execute("[typeof globalThis.__fuzzRan, before]");
    const log = kernel.stderr();
    const crashes = (log.match(/uncaught|unhandled rejection|executor (failed|killed|exited)|starting a new one/g) ?? []).length;
    const rows: Row[] = [
      { metric: "wire fuzz: messages sent (shell, control, stdin)", value: MESSAGES, unit: "", target: "", verdict: "-" },
      ...[...counts].sort().map(([kind, n]): Row => ({ metric: `  of which ${kind}`, value: n, unit: "", target: "", verdict: "-" })),
      { metric: "wire fuzz: error replies expected", value: expected.length, unit: "", target: "", verdict: "-" },
      { metric: "wire fuzz: error replies missing or not errors", value: missing.length + notErrors.length, unit: "", target: "0", verdict: missing.length + notErrors.length === 0 ? "ok" : "MISS" },
      { metric: "wire fuzz: cells executed (execute_input seen)", value: executedDuringFuzz, unit: "", target: "0", verdict: executedDuringFuzz === 0 ? "ok" : "MISS" },
      { metric: "wire fuzz: crashes (kernel or executor)", value: crashes + (kernel.process.exitCode === null ? 0 : 1), unit: "", target: "0", verdict: crashes === 0 ? "ok" : "MISS" },
      { metric: "wire fuzz: time to send", value: Math.round(sentMs), unit: "ms", target: "", verdict: "-" },
      { metric: "wire fuzz: seed", value: random.seed, unit: "", target: "", verdict: "-" },
    ];
    printTable(rows);

    expect(missing.map((id) => described.get(id)), "requests with bad content that got no reply").toEqual([]);
    expect(notErrors.map((id) => replies.get(id)), "replies that were not errors").toEqual([]);
    expect(info.content.status).toBe("ok");
    expect(controlInfo.content.status).toBe("ok");
    // The marker was never set, and the bindings from before are there: the same executor.
    expect(resultText(cell.iopub)).toBe("[ 'undefined', 'kept' ]");
    expect(executedDuringFuzz).toBe(0);
    expect(crashes, log.slice(-3000)).toBe(0);
    expect(kernel.process.exitCode).toBeNull();
  }, 240_000);
});

/** An oversized frame costs its connection, so it goes on a connection of its own. */
async function sendOnce(fuzz: Case): Promise<void> {
  const dealer = new zmq.Dealer({ linger: 0 });
  dealer.connect(endpoint(kernel.info, kernel.info[`${fuzz.channel}_port`]));
  await dealer.send(fuzz.frames);
  await new Promise((r) => setTimeout(r, 5));
  dealer.close();
}
