// Quits the helper that answers on a socket: its pid comes from `ping`, then SIGTERM, which the
// Swift helper handles by removing its socket and exiting.
import { setTimeout as sleep } from "node:timers/promises";
import { HelperClient } from "../helper/client.js";
import { isAlive } from "../process-signals.js";

const QUIT_WAIT_MS = 5_000;

/** Returns the pid that was asked to quit, or undefined when no helper answered. */
export async function quitRunningHelper(socketPath: string, clientName = "deskbook setup"): Promise<number | undefined> {
  let client: HelperClient;
  try {
    // No launch function: only a helper that is already running is of interest.
    client = await HelperClient.connect({ socketPath, clientName, connectTimeoutMs: 300 });
  } catch {
    return undefined;
  }
  let pid: number;
  try {
    pid = (await client.request("ping", {})).pid;
  } finally {
    await client.close();
  }
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) throw new Error(`the helper reported pid ${pid}; not sending it a signal`);
  process.kill(pid, "SIGTERM");
  await waitForExit(pid);
  return pid;
}

async function waitForExit(pid: number): Promise<void> {
  const deadline = Date.now() + QUIT_WAIT_MS;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await sleep(100);
  }
  throw new Error(`the helper (pid ${pid}) did not quit within ${QUIT_WAIT_MS / 1000} s`);
}

