/**
 * A kernel that does no work: `node dist/bench/floor-kernel.js -f CONNECTION_FILE [--relay | --relay-thread]`.
 *
 * It binds the five Jupyter sockets with Deskbook's own wire code (src/jupyter) and answers
 * kernel_info_request and execute_request with status busy, the reply and status idle, at
 * once. Whatever a round trip to it costs is the client, ZeroMQ and the wire format: the floor
 * the kernel bench compares Deskbook's execute round trip with.
 *
 * With `--relay` it is that floor plus what Deskbook's two processes cost at the least: each
 * execute_request's code goes to a child process (bench/relay-child.ts) over Node IPC with
 * "advanced" serialization, as the kernel posts a cell to its executor
 * (src/kernel/executor-host.ts), the child answers at once, and only then are the reply and
 * idle sent. The child runs nothing.
 *
 * With `--relay-thread` the same code runs in a worker thread instead (postMessage each way):
 * what an executor inside the kernel's process would cost at the least.
 *
 * With `--messages` it also publishes what a real kernel must for a cell of `1`: execute_input
 * (the code re-broadcast to every frontend) and execute_result (`1` as text/plain), in
 * Deskbook's order (busy, execute_input, the result, the reply, idle). With `--relay` that is
 * the least Deskbook's design can cost: the protocol's messages and the executor's process.
 */
import { fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { KernelChannels } from "../src/jupyter/channels.js";
import { validateConnectionInfo } from "../src/jupyter/connection.js";
import { newHeader, replyTo, type Channel, type JupyterMessage } from "../src/jupyter/message.js";

/** What the relay posts to its far end (bench/relay-child.ts), and what that answers. */
export interface RelayPost {
  reqId: number;
  code: string;
}
export interface RelayAnswer {
  reqId: number;
}

/** Where the relay's far end runs, and the one way each posts and hears answers. */
interface RelayEnd {
  post(message: RelayPost): void;
  onAnswer(listener: (answer: RelayAnswer) => void): void;
}

const RELAY_CHILD = fileURLToPath(new URL("./relay-child.js", import.meta.url));

/** A child process, reached as the kernel reaches its executor. */
function childProcessEnd(): RelayEnd {
  const child = fork(RELAY_CHILD, [], { serialization: "advanced", stdio: ["ignore", "ignore", "inherit", "ipc"] });
  return { post: (message) => child.send(message), onAnswer: (listener) => child.on("message", listener) };
}

/** A worker thread of this process. */
function workerThreadEnd(): RelayEnd {
  const worker = new Worker(RELAY_CHILD);
  return { post: (message) => worker.postMessage(message), onAnswer: (listener) => worker.on("message", listener) };
}

/** The kernel's side of the relay: posts a cell's code and resolves when the far end answers. */
function startRelay(end: RelayEnd): (code: string) => Promise<void> {
  const waiting = new Map<number, () => void>();
  let next = 0;
  end.onAnswer((answer) => {
    waiting.get(answer.reqId)?.();
    waiting.delete(answer.reqId);
  });
  return (code) =>
    new Promise<void>((resolve) => {
      const reqId = ++next;
      waiting.set(reqId, resolve);
      end.post({ reqId, code });
    });
}

function relayFromArgs(args: readonly string[]): ((code: string) => Promise<void>) | undefined {
  if (args.includes("--relay")) return startRelay(childProcessEnd());
  if (args.includes("--relay-thread")) return startRelay(workerThreadEnd());
  return undefined;
}

async function main(): Promise<void> {
  const file = process.argv[process.argv.indexOf("-f") + 1];
  if (!file) throw new Error("usage: floor-kernel -f CONNECTION_FILE [--relay | --relay-thread] [--messages]");
  const relay = relayFromArgs(process.argv);
  const messages = process.argv.includes("--messages");
  const info = validateConnectionInfo(JSON.parse(await readFile(file, "utf8")), file);
  const channels = await KernelChannels.bind(info, { log: (line) => process.stderr.write(`${line}\n`) });
  const publish = (parent: JupyterMessage, type: string, content: Record<string, unknown>): Promise<void> =>
    channels.publish({ identities: [], header: newHeader(type, channels.session, channels.username), parent_header: parent.header, metadata: {}, content, buffers: [] });
  const status = (parent: JupyterMessage, state: "busy" | "idle"): Promise<void> => publish(parent, "status", { execution_state: state });
  let count = 0;
  channels.onMessage(async (channel: Channel, msg: JupyterMessage) => {
    const type = msg.header.msg_type;
    if (type !== "kernel_info_request" && type !== "execute_request") return;
    void status(msg, "busy");
    const code = String((msg.content as { code?: unknown }).code);
    const executing = type === "execute_request";
    if (executing) count += 1;
    // As Deskbook's kernel does: the cell is posted first, execute_input sent while it runs.
    const relayed = relay && executing ? relay(code) : undefined;
    if (messages && executing) void publish(msg, "execute_input", { code, execution_count: count });
    await relayed;
    if (messages && executing) void publish(msg, "execute_result", { execution_count: count, data: { "text/plain": "1" }, metadata: {} });
    const content = executing ? { status: "ok", execution_count: count, user_expressions: {} } : KERNEL_INFO;
    void channels.send(channel, replyTo(msg, type.replace("_request", "_reply"), content, channels.session, channels.username));
    await status(msg, "idle");
  });
  const stop = (): void => void channels.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

const KERNEL_INFO = {
  status: "ok",
  protocol_version: "5.3",
  implementation: "floor",
  implementation_version: "0",
  language_info: { name: "none", version: "0", mimetype: "text/plain", file_extension: ".txt" },
  banner: "a kernel that does no work",
  help_links: [],
};

main().catch((error: unknown) => {
  process.stderr.write(`floor kernel failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
