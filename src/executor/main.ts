import type { FromExecutor, ToExecutor } from "./protocol.js";
import { Session } from "./session.js";

// The executor child: runs cells for the kernel over Node IPC and never exits on its
// own while the kernel is connected.

function send(message: FromExecutor): void {
  if (process.connected) process.send?.(message);
}

const session = new Session(send);

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
      session.answerInput(message.reqId, message.value);
      return;
  }
}

process.on("message", (message: ToExecutor) => {
  handle(message).catch((error: unknown) => session.reportBackgroundError(error));
});
// The kernel stops a cell with SIGINT: vm's breakOnSigint handles it inside user code,
// this handler while the cell waits on something.
process.on("SIGINT", () => session.stopRunningCell());
process.on("uncaughtException", (error) => session.reportBackgroundError(error));
process.on("unhandledRejection", (reason) => session.reportBackgroundError(reason));
process.on("disconnect", () => process.exit(0));

send({ type: "ready", pid: process.pid });
