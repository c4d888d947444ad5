/**
 * The floor kernel's relay child (bench/floor-kernel.ts `--relay`): answers every message at
 * once, like an executor with nothing to run.
 */
import type { RelayAnswer, RelayPost } from "./floor-kernel.js";

process.on("message", (message: RelayPost) => process.send?.({ reqId: message.reqId } satisfies RelayAnswer));
process.on("disconnect", () => process.exit(0));
