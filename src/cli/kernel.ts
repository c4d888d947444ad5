import { readConnectionFile } from "../jupyter/connection.js";
import { deskbookHome } from "../config/home.js";
import { Kernel } from "../kernel/kernel.js";

const USAGE = "usage: deskbook kernel -f CONNECTION_FILE";

/** `deskbook kernel -f FILE`: what Jupyter runs (the kernelspec's argv). */
export async function runKernel(args: string[]): Promise<number> {
  const flag = args.findIndex((a) => a === "-f" || a === "--connection-file");
  const file = flag >= 0 ? args[flag + 1] : undefined;
  if (!file) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`[deskbook] ${line}\n`);
  const kernel = await Kernel.start({ connection: await readConnectionFile(file), home: deskbookHome(), log });
  process.on("SIGINT", () => kernel.interrupt());
  process.on("SIGTERM", () => void kernel.shutdown().then(() => process.exit(0)));
  // A kernel must outlive bugs in one request; log them and keep serving.
  process.on("uncaughtException", (error) => log(`uncaught: ${error.stack ?? String(error)}`));
  process.on("unhandledRejection", (reason) => log(`unhandled rejection: ${String(reason)}`));
  return new Promise<number>(() => undefined);
}
