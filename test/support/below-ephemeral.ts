/**
 * Loopback ports below the OS's ephemeral range, for tests that free a port and bind it again:
 * no other process's connect() or port-0 listen can be handed one of these meanwhile. Linux
 * says its range in /proc (32768..60999 by default); a host whose range starts too low for
 * that leaves no such ports, and the test says so rather than racing.
 */
import { readFileSync } from "node:fs";

export interface PortSpan {
  lower: number;
  upper: number;
}

const LINUX_RANGE = "/proc/sys/net/ipv4/ip_local_port_range";

/**
 * `size` ports below the ephemeral range, above the privileged ones, leaving the `skip` ports
 * nearest the range to another test file (files run in parallel: each keeps its own span).
 */
export function portsBelowEphemeral(size: number, skip = 0): PortSpan {
  const ephemeralLower = Number(readFileSync(LINUX_RANGE, "utf8").trim().split(/\s+/)[0]);
  const upper = ephemeralLower - 1 - skip;
  const lower = upper - size + 1;
  if (!Number.isInteger(ephemeralLower) || lower <= 1024) throw new Error(`no ${size} ports below the ephemeral range (${LINUX_RANGE}: starts at ${ephemeralLower})`);
  return { lower, upper };
}
