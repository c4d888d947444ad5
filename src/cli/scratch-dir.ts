// A temp directory that goes with the process that made it, however the process ends: an exit
// (a normal one, or process.exit from an error path or the kernel's shutdown), and SIGTERM,
// SIGINT or SIGHUP when nothing else handles them (the kernel handles SIGTERM and SIGINT once
// it runs; before that, and for SIGHUP always, a signal would end the process without an
// "exit" event). A SIGKILL cannot be caught, so what it leaves stays for the system's temp
// cleaning: the name's prefix says whose it is.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ENDING_SIGNALS: NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP"];

/** Makes `TMPDIR/<prefix>XXXXXX` and removes it when the process ends. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once("exit", remove);
  const onSignal = (name: NodeJS.Signals) => {
    // Another handler decides what this signal does (the kernel's: SIGINT interrupts a cell,
    // SIGTERM shuts down and exits, which the exit hook covers).
    if (process.listenerCount(name) > 1) return;
    remove();
    for (const other of ENDING_SIGNALS) process.removeListener(other, onSignal);
    // The default action again, so the process still ends by the signal (exit status 128 + n).
    process.kill(process.pid, name);
  };
  for (const name of ENDING_SIGNALS) process.on(name, onSignal);
  return dir;
}
