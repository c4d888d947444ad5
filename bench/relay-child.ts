/**
 * The floor kernel's relay far end (bench/floor-kernel.ts): answers every message at once,
 * like an executor with nothing to run. It runs as a child process (`--relay`, Node IPC) or
 * as a worker thread (`--relay-thread`, its parent port).
 */
import { parentPort } from "node:worker_threads";
import type { RelayAnswer, RelayPost } from "./floor-kernel.js";

const answer = (message: RelayPost): RelayAnswer => ({ reqId: message.reqId });

if (parentPort) {
  const port = parentPort;
  port.on("message", (message: RelayPost) => port.postMessage(answer(message)));
} else {
  process.on("message", (message: RelayPost) => process.send?.(answer(message)));
  process.on("disconnect", () => process.exit(0));
}
