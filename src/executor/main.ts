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
    case "stop":
      session.stopCell(message.cellId);
      return;
  }
}

process.on("message", (message: ToExecutor) => {
  handle(message).catch((error: unknown) => session.reportBackgroundError(error));
});
// The kernel stops a cell with a "stop" message and SIGINT. Inside user code vm's
// breakOnSigint turns the signal into a stop; while the cell waits, the message does. A
// signal that reaches this handler may be late (its cell already ended), so it only must
// not kill the process.
process.on("SIGINT", () => undefined);
process.on("uncaughtException", (error) => session.reportBackgroundError(error));
process.on("unhandledRejection", (reason) => session.reportBackgroundError(reason));
process.on("disconnect", () => process.exit(0));

send({ type: "ready", pid: process.pid });
