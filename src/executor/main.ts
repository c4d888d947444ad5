import type { FromExecutor, ToExecutor } from "./ipc-messages.js";
import { Session } from "./session.js";
import { StdinNotConnectedError } from "./input.js";
import { StopGate, type StopChannel } from "./stop-gate.js";
import { watchForOrphaning } from "./orphan-watch.js";
import { holdSigintWatchdog } from "./sigint-watchdog.js";
import { createDeskGlobals } from "./desk-binding.js";
import { setFlagsFromString } from "node:v8";

// Each cell is a new vm.Script, which V8's compilation cache would keep for the life of the
// process (~2 KiB a cell over 2000 distinct cells); recompiling a repeated cell is cheap. Off
// from here on, once this process's modules are compiled: on the command line the flag also
// slowed compiling Node's own modules at start (~25 ms of CPU before the first cell).
setFlagsFromString("--no-compilation-cache");

// The executor child: runs cells for the kernel over Node IPC and never exits on its
// own while the kernel is connected.

function send(message: FromExecutor): void {
  if (process.connected) process.send?.(message);
}

// The kernel passes the pipe it writes stop requests to (`--stop-fd=N`), the directory of stop
// marks (`--stop-dir=PATH`) and a pipe it never writes to (`--life-fd=N`); see stop-gate.ts.
function argument(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}
const stopFd = argument("stop-fd");
const stopDir = argument("stop-dir");
const lifeFd = argument("life-fd");
const channel: StopChannel | undefined = stopFd && stopDir ? { fd: Number(stopFd), dir: stopDir } : undefined;
if (lifeFd) watchForOrphaning(Number(lifeFd), stopDir);
const gate = new StopGate((cellId) => session.stopCell(cellId), channel);
const baseDir = process.cwd();
// The desk API is the one thing here beyond JavaScript: injected, so the session stays a JavaScript session.
const session = new Session(send, { baseDir, gate, globals: (host) => createDeskGlobals(host, baseDir) });

async function handle(message: ToExecutor): Promise<void> {
  switch (message.type) {
    case "execute":
      send({ type: "execute_done", reqId: message.reqId, outcome: await session.execute(message) });
      return;
    case "complete":
      send(session.complete(message));
      return;
    case "inspect":
      send(session.inspect(message));
      return;
    case "input_reply":
      session.answerInput(message.reqId, "error" in message ? new StdinNotConnectedError(message.error) : message.value);
      return;
    case "shutdown":
      await session.shutdown();
      send({ type: "shutdown_done", reqId: message.reqId });
      return;
  }
}

process.on("message", (message: ToExecutor) => {
  handle(message).catch((error: unknown) => {
    // The kernel waits for an answer to every request: a failure must still be one.
    if ("reqId" in message && message.type !== "input_reply") send({ type: "request_failed", reqId: message.reqId, message: errorText(error) });
    else session.reportBackgroundError(error);
  });
});

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
// Only the kernel sends this process SIGINT, and only while user code runs inside a
// breakOnSigint call (stop-gate.ts). A stray one from elsewhere (`kill -INT`) that arrives outside such a
// call must not end the session: the watchdog held from here on catches it (sigint-watchdog.ts).
holdSigintWatchdog();
process.on("uncaughtException", (error) => session.reportBackgroundError(error));
process.on("unhandledRejection", (reason) => session.reportBackgroundError(reason));
process.on("disconnect", () => process.exit(0));

send({ type: "ready", pid: process.pid });
