/**
 * A kernel that does no work: `node dist/bench/floor-kernel.js -f CONNECTION_FILE [--relay]`.
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
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { KernelChannels } from "../src/jupyter/channels.js";
import { validateConnectionInfo } from "../src/jupyter/connection.js";
import { newHeader, replyTo, type Channel, type JupyterMessage } from "../src/jupyter/message.js";

/** What the relay posts to its child (bench/relay-child.ts), and what the child answers. */
export interface RelayPost {
  reqId: number;
  code: string;
}
export interface RelayAnswer {
  reqId: number;
}

/** The kernel's side of the relay: posts a cell's code and resolves when the child answers. */
function startRelay(): (code: string) => Promise<void> {
  const child: ChildProcess = fork(fileURLToPath(new URL("./relay-child.js", import.meta.url)), [], { serialization: "advanced", stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const waiting = new Map<number, () => void>();
  let next = 0;
  child.on("message", (answer: RelayAnswer) => {
    waiting.get(answer.reqId)?.();
    waiting.delete(answer.reqId);
  });
  return (code) =>
    new Promise<void>((resolve) => {
      const reqId = ++next;
      waiting.set(reqId, resolve);
      child.send({ reqId, code } satisfies RelayPost);
    });
}

async function main(): Promise<void> {
  const file = process.argv[process.argv.indexOf("-f") + 1];
  if (!file) throw new Error("usage: floor-kernel -f CONNECTION_FILE [--relay]");
  const relay = process.argv.includes("--relay") ? startRelay() : undefined;
  const info = validateConnectionInfo(JSON.parse(await readFile(file, "utf8")), file);
  const channels = await KernelChannels.bind(info, { log: (line) => process.stderr.write(`${line}\n`) });
  const status = (parent: JupyterMessage, state: "busy" | "idle"): Promise<void> =>
    channels.publish({ identities: [], header: newHeader("status", channels.session, channels.username), parent_header: parent.header, metadata: {}, content: { execution_state: state }, buffers: [] });
  let count = 0;
  channels.onMessage(async (channel: Channel, msg: JupyterMessage) => {
    const type = msg.header.msg_type;
    if (type !== "kernel_info_request" && type !== "execute_request") return;
    void status(msg, "busy");
    if (relay && type === "execute_request") await relay(String((msg.content as { code?: unknown }).code));
    const content = type === "kernel_info_request" ? KERNEL_INFO : { status: "ok", execution_count: ++count, user_expressions: {} };
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
