// Enterprise Gateway's port range ("LOWER..UPPER", "0..0" for any), as its kernel launchers
// take it; picking ports inside it is src/client/free-ports.ts, shared with every kernel start.
import type { PortRange } from "../client/free-ports.js";

export type { PortRange };

export class PortRangeError extends Error {
  override readonly name = "PortRangeError";
}

/** "LOWER..UPPER" → the range; "0..0" (EG's default) means any port. */
export function parsePortRange(text: string): PortRange {
  const match = /^(\d+)\.\.(\d+)$/.exec(text.trim());
  const lower = Number(match?.[1]);
  const upper = Number(match?.[2]);
  const any = lower === 0 && upper === 0;
  if (!match || (!any && (lower < 1024 || upper > 65535 || upper - lower < 5))) {
    throw new PortRangeError(`--port-range must be LOWER..UPPER (1024..65535, at least 6 ports) or 0..0, not ${JSON.stringify(text)}`);
  }
  return { lower, upper };
}
