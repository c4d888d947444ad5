import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as zmq from "zeromq";
import { KernelChannels, type MessageHandler } from "../../src/jupyter/channels.js";
import type { ConnectionInfo } from "../../src/jupyter/connection.js";
import { PortInUseError } from "../../src/jupyter/port-in-use.js";
import { DELIMITER, decode, encode } from "../../src/jupyter/framing.js";
import { newHeader, replyTo, type Channel, type JupyterMessage } from "../../src/jupyter/message.js";
import { Signer } from "../../src/jupyter/signing.js";
import { writeConnectionFile } from "../../src/client/connection-file.js";
import { freePorts } from "../../src/client/free-ports.js";
import { KernelClient } from "../../src/client/kernel-client.js";
import { portsBelowEphemeral } from "../support/below-ephemeral.js";

/** Linux hands out ephemeral ports from 32768 up (ip_local_port_range); listeners picked here stay clear of them. */
// The 1000 ports nearest the ephemeral range are test/client/free-ports.test.ts's.
const BELOW_EPHEMERAL = portsBelowEphemeral(9000, 1000);

const SESSION = "kernel-session-1";
const USER = "kernel";

interface Harness {
  info: ConnectionInfo;
  channels: KernelChannels;
  client: KernelClient;
  logs: string[];
  received: { channel: Channel; msg: JupyterMessage }[];
}

let dir: string;
let h: Harness;
const cleanups: (() => Promise<void>)[] = [];

/** A minimal echo kernel: every *_request gets a *_reply carrying its content back. */
function echoHandler(channels: KernelChannels): MessageHandler {
  return (channel, msg) => {
    const type = msg.header.msg_type.replace(/_request$/, "_reply");
    if (type === msg.header.msg_type) return;
    void channels.send(channel, replyTo(msg, type, { status: "ok", echo: msg.content }, SESSION, USER));
  };
}

async function start(opts: { key?: string; handler?: (c: KernelChannels) => MessageHandler } = {}): Promise<Harness> {
  const { info } = await writeConnectionFile(dir, opts);
  const logs: string[] = [];
  const channels = await KernelChannels.bind(info, { log: (l) => logs.push(l), session: SESSION, username: USER });
  cleanups.push(() => channels.close());
  const received: Harness["received"] = [];
  const handler = (opts.handler ?? echoHandler)(channels);
  channels.onMessage((channel, msg) => {
    received.push({ channel, msg });
    return handler(channel, msg);
  });
  const client = await KernelClient.connect(info);
  cleanups.push(() => client.close());
  return { info, channels, client, logs, received };
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const stop = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > stop) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "deskbook-wire-"));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe("KernelChannels with a real client", () => {
  beforeEach(async () => {
    h = await start();
  });

  it("greets each subscriber with iopub_welcome", async () => {
    const welcome = await h.client.waitForIopub((m) => m.header.msg_type === "iopub_welcome", 2000);
    expect(welcome.content).toEqual({ subscription: "" });
    expect(welcome.parent_header).toEqual({});
    expect(welcome.header.session).toBe(SESSION);
    expect(welcome.header.username).toBe(USER);
    expect(welcome.header.version).toBe("5.3");
    // A second subscriber to the same (empty) topic must still be seen and welcomed.
    const second = await KernelClient.connect(h.info, { readyTimeoutMs: 3000 });
    cleanups.push(() => second.close());
    const welcomes = second.iopubLog.filter((m) => m.header.msg_type === "iopub_welcome");
    expect(welcomes.length).toBeGreaterThanOrEqual(1);
    await until(() => h.client.iopubLog.filter((m) => m.header.msg_type === "iopub_welcome").length >= 2, "2nd welcome");
  });

  it("knows whether anyone listens on iopub, as subscribers come and go", async () => {
    expect(h.channels.iopubSubscriptions.any).toBe(true);
    // A second subscriber to "" that also takes a topic of its own, which only it has: when it
    // leaves, libzmq unsubscribes its topics in one pass over its subscription trie, root ("")
    // first, so once its own topic is gone any unsubscribe of "" would have been seen.
    const second = new zmq.Subscriber({ linger: 0 });
    second.connect(`tcp://${h.info.ip}:${h.info.iopub_port}`);
    second.subscribe("", "second-only");
    await until(() => h.channels.iopubSubscriptions.has("second-only"), "the second subscriber");
    second.close();
    await until(() => !h.channels.iopubSubscriptions.has("second-only"), "the second subscriber to leave");
    // The first subscriber of "" is still there: no unsubscribe of it reached the kernel.
    expect(h.channels.iopubSubscriptions.has("")).toBe(true);
    await h.client.close();
    await until(() => !h.channels.iopubSubscriptions.any, "the last subscriber to leave");
    const back = await KernelClient.connect(h.info, { readyTimeoutMs: 3000 });
    cleanups.push(() => back.close());
    expect(h.channels.iopubSubscriptions.any).toBe(true);
  });

  it("delivers shell and control requests to the handler and routes replies back", async () => {
    const reply = await h.client.request("shell", "kernel_info_request", { probe: 1 });
    expect(reply.header.msg_type).toBe("kernel_info_reply");
    expect(reply.content).toEqual({ status: "ok", echo: { probe: 1 } });
    const request = h.received.find((r) => r.msg.header.msg_type === "kernel_info_request" && r.msg.content.probe === 1);
    expect(request?.channel).toBe("shell");
    expect(reply.parent_header).toEqual(request?.msg.header);
    expect(request?.msg.header.session).toBe(h.client.session);
    expect(request?.msg.identities).toHaveLength(1);

    const control = await h.client.request("control", "interrupt_request", {}, { metadata: { m: 1 } });
    expect(control.header.msg_type).toBe("interrupt_reply");
    const seen = h.received.find((r) => r.msg.header.msg_type === "interrupt_request");
    expect(seen?.channel).toBe("control");
    expect(seen?.msg.metadata).toEqual({ m: 1 });
  });

  it("drops and logs a badly signed message, then keeps serving", async () => {
    const forged = encode(h.client.newRequest("kernel_info_request", { forged: true }), new Signer("hmac-sha256", "wrong"));
    await h.client.sendRaw("shell", forged);
    await h.client.sendRaw("control", [Buffer.from("no delimiter here")]);
    await until(() => h.logs.length >= 2, "two log lines");
    expect(h.logs).toContain("wire: dropped shell message: invalid signature");
    expect(h.logs).toContain("wire: dropped control message: missing <IDS|MSG> delimiter");
    const reply = await h.client.request("shell", "kernel_info_request", { after: true });
    expect(reply.content.echo).toEqual({ after: true });
    expect(h.received.some((r) => r.msg.content.forged === true)).toBe(false);
  });

  it("echoes heartbeats, and the client recovers after a missed beat", async () => {
    expect(await h.client.heartbeat(1000)).toBe(true);
    expect(await h.client.heartbeat(1000)).toBe(true);
    await h.channels.close();
    expect(await h.client.heartbeat(300)).toBe(false);
    // Same ports again: the client must have replaced its stuck REQ socket.
    const again = await KernelChannels.bind(h.info, { log: () => undefined });
    cleanups.push(() => again.close());
    let ok = false;
    for (let i = 0; i < 20 && !ok; i++) ok = await h.client.heartbeat(500);
    expect(ok).toBe(true);
  });

  it("publishes 200 messages in call order", async () => {
    const parent = h.client.newRequest("execute_request", { code: "" });
    const sends = Array.from({ length: 200 }, (_, n) =>
      h.channels.publish(replyTo(parent, "stream", { name: "stdout", text: `${n}\n`, n }, SESSION, USER)),
    );
    await Promise.all(sends);
    await until(() => h.client.iopubFor(parent.header.msg_id).length === 200, "200 stream messages");
    const order = h.client.iopubFor(parent.header.msg_id).map((m) => m.content.n);
    expect(order).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(h.client.wireErrors).toEqual([]);
  });

  it("drops sends after close with a log line instead of failing", async () => {
    await h.channels.close();
    const msg = h.client.newRequest("status", { execution_state: "idle" });
    await expect(h.channels.publish(msg)).resolves.toBeUndefined();
    expect(h.logs).toContain("wire: dropped outgoing iopub status: channels are closed");
    await h.channels.close(); // idempotent
  });
});

describe("KernelChannels with custom handlers", () => {
  it("logs handler exceptions and keeps the loop alive", async () => {
    const { client, logs, received } = await start({
      handler: (channels) => (channel, msg) => {
        if (msg.content.fail === "sync") throw new Error("boom sync");
        if (msg.content.fail === "async") return Promise.reject(new Error("boom async"));
        void channels.send(channel, replyTo(msg, "ok_reply", {}, SESSION, USER));
      },
    });
    await client.send("shell", client.newRequest("x_request", { fail: "sync" }));
    await client.send("shell", client.newRequest("x_request", { fail: "async" }));
    const reply = await client.request("shell", "ok_request", {});
    expect(reply.header.msg_type).toBe("ok_reply");
    expect(received).toHaveLength(3);
    await until(() => logs.length >= 2, "handler failure logs");
    expect(logs).toEqual([
      "wire: shell handler failed on x_request: boom sync",
      "wire: shell handler failed on x_request: boom async",
    ]);
  });

  it("drives a full execute with stdin through the test client", async () => {
    let pendingExecute: JupyterMessage | undefined;
    const { client } = await start({
      handler: (channels) => async (channel, msg) => {
        const status = (parent: JupyterMessage, state: string): Promise<void> =>
          channels.publish(replyTo(parent, "status", { execution_state: state }, SESSION, USER));
        if (channel === "shell" && msg.header.msg_type === "execute_request") {
          pendingExecute = msg;
          await status(msg, "busy");
          const prompt = replyTo(msg, "input_request", { prompt: "name? ", password: false }, SESSION, USER);
          await channels.send("stdin", prompt);
        } else if (channel === "stdin" && msg.header.msg_type === "input_reply" && pendingExecute) {
          const exec = pendingExecute;
          const text = `hi ${String(msg.content.value)} (${msg.parent_header.msg_type})`;
          await channels.publish(replyTo(exec, "stream", { name: "stdout", text }, SESSION, USER));
          await channels.send("shell", replyTo(exec, "execute_reply", { status: "ok", execution_count: 1 }, SESSION, USER));
          await status(exec, "idle");
        }
      },
    });
    const prompts: string[] = [];
    const { reply, iopub } = await client.execute("input()", {
      onInput: (req) => {
        prompts.push(String(req.content.prompt));
        return "Ada";
      },
    });
    expect(prompts).toEqual(["name? "]);
    expect(pendingExecute?.content).toMatchObject({ code: "input()", allow_stdin: true, silent: false });
    expect(reply.content).toEqual({ status: "ok", execution_count: 1 });
    expect(iopub.map((m) => m.header.msg_type)).toEqual(["status", "stream", "status"]);
    expect(iopub[1]!.content.text).toBe("hi Ada (input_request)");
  });
});

describe("KernelChannels options", () => {
  it("works unsigned when the key is empty", async () => {
    h = await start({ key: "" });
    const reply = await h.client.request("shell", "kernel_info_request", {});
    expect(reply.header.msg_type).toBe("kernel_info_reply");
    expect(h.logs).toEqual([]);
  });

  it("binds random ports when the file says 0 and reports them", async () => {
    const { info } = await writeConnectionFile(dir);
    const zeroed = { ...info, shell_port: 0, iopub_port: 0, stdin_port: 0, control_port: 0, hb_port: 0 };
    const channels = await KernelChannels.bind(zeroed, { log: () => undefined });
    cleanups.push(() => channels.close());
    const ports = [channels.info.shell_port, channels.info.iopub_port, channels.info.hb_port];
    expect(ports.every((p) => p > 0)).toBe(true);
    const client = await KernelClient.connect(channels.info);
    cleanups.push(() => client.close());
    expect(await client.heartbeat(1000)).toBe(true);
  });

  it("works over ipc transport", async () => {
    const { info } = await writeConnectionFile(dir);
    const ipc: ConnectionInfo = { ...info, transport: "ipc", ip: join(dir, "kernel-ipc") };
    const channels = await KernelChannels.bind(ipc, { log: () => undefined });
    cleanups.push(() => channels.close());
    channels.onMessage(echoHandler(channels));
    const client = await KernelClient.connect(ipc);
    cleanups.push(() => client.close());
    expect((await client.request("shell", "kernel_info_request", {})).header.msg_type).toBe("kernel_info_reply");
    expect(await client.heartbeat(1000)).toBe(true);
  });

  it("rejects an unknown signature scheme before binding anything", async () => {
    const { info } = await writeConnectionFile(dir);
    await expect(KernelChannels.bind({ ...info, signature_scheme: "hmac-nope" }, { log: () => undefined })).rejects.toThrow(
      /unsupported signature scheme "hmac-nope"/,
    );
    const ok = await KernelChannels.bind(info, { log: () => undefined });
    cleanups.push(() => ok.close());
  });

  it("fails to bind a port in use with a clear error and releases the others", async () => {
    const first = await start();
    // libzmq frees a port in its I/O thread after close() returns; one round can pass by luck,
    // thirty in a row only if a failed bind waits until its ports are really free. Each round
    // takes its own ports (close() does not wait), from below the OS's ephemeral range, so no
    // other process's connect() or port-0 listen can be handed one between the two binds.
    for (let round = 0; round < 30; round++) {
      const [shell_port, iopub_port, stdin_port, control_port, hb_port] = await freePorts(5, { range: BELOW_EPHEMERAL });
      const info = { ...(await writeConnectionFile(dir)).info, shell_port: shell_port!, iopub_port: iopub_port!, stdin_port: stdin_port!, control_port: control_port!, hb_port: hb_port! };
      // Heartbeat binds last, so the four sockets before it are already bound when it fails.
      const clash = { ...info, hb_port: first.info.hb_port };
      await expect(KernelChannels.bind(clash, { log: () => undefined })).rejects.toThrow(
        new PortInUseError("heartbeat", `tcp://127.0.0.1:${first.info.hb_port}`),
      );
      const retry = await KernelChannels.bind(info, { log: () => undefined });
      expect(retry.info.shell_port).toBe(info.shell_port);
      await retry.close();
    }
  });

  it("refuses messages over maxMessageBytes", async () => {
    const { info } = await writeConnectionFile(dir);
    const logs: string[] = [];
    const channels = await KernelChannels.bind(info, { log: (l) => logs.push(l), maxMessageBytes: 4096 });
    cleanups.push(() => channels.close());
    channels.onMessage((channel, msg) => void channels.send(channel, replyTo(msg, "r", {}, "s", "u")));
    const client = await KernelClient.connect(info);
    cleanups.push(() => client.close());
    // Each frame under the limit, the total over it: refused by decode, logged.
    const msg = client.newRequest("big_request", { text: "x".repeat(1500) }, { pad: "y".repeat(1500) });
    msg.buffers = [Buffer.alloc(2000)];
    await client.send("shell", msg);
    await until(() => logs.length > 0, "oversize log");
    expect(logs[0]).toMatch(/^wire: dropped shell message: message is \d+ bytes, over the 4096 byte limit$/);
    expect((await client.request("shell", "small_request", {})).header.msg_type).toBe("r");
  });
});

describe("KernelClient framing edge cases", () => {
  it("sendRaw frames start at the delimiter (the DEALER adds routing)", async () => {
    h = await start();
    const msg = h.client.newRequest("kernel_info_request", { raw: true });
    const frames = encode(msg, h.client.signer);
    expect(frames[0]).toBe(DELIMITER);
    await h.client.sendRaw("shell", frames);
    // Nobody awaited this request, so its reply lands in unmatchedReplies.
    await until(() => h.client.unmatchedReplies.some((m) => m.parent_header.msg_id === msg.header.msg_id), "reply");
    expect(h.received.find((r) => r.msg.content.raw === true)?.msg.header).toEqual(msg.header);
  });
});

describe("KernelClient readiness", () => {
  it("falls back to kernel_info probes when the kernel sends no iopub_welcome", async () => {
    const { info } = await writeConnectionFile(dir);
    const signer = new Signer(info.signature_scheme, info.key);
    // A bare kernel: plain PUB (no subscription frames, so no welcome) and a shell ROUTER.
    const pub = new zmq.Publisher({ linger: 0 });
    const shell = new zmq.Router({ linger: 0 });
    await pub.bind(`tcp://127.0.0.1:${info.iopub_port}`);
    await shell.bind(`tcp://127.0.0.1:${info.shell_port}`);
    let probes = 0;
    const serve = (async () => {
      for await (const frames of shell) {
        const result = decode(frames, signer, 1 << 20);
        if (!result.ok) continue;
        probes += 1;
        await pub.send(encode(replyTo(result.message, "status", { execution_state: "idle" }, "s", "u"), signer));
      }
    })();
    cleanups.push(async () => {
      pub.close();
      shell.close();
      await serve;
    });
    const client = await KernelClient.connect(info, { readyTimeoutMs: 5000 });
    cleanups.push(() => client.close());
    expect(probes).toBeGreaterThanOrEqual(1);
    expect(client.iopubLog.some((m) => m.header.msg_type === "status")).toBe(true);
    expect(client.iopubLog.some((m) => m.header.msg_type === "iopub_welcome")).toBe(false);
  });

  it("gives up with a clear error when nothing ever arrives on iopub", async () => {
    const { info } = await writeConnectionFile(dir);
    await expect(KernelClient.connect(info, { readyTimeoutMs: 1500 })).rejects.toThrow(
      "iopub did not become live within 1500 ms",
    );
  });
});
