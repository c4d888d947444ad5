// What a helper offers beyond the protocol's core, read from its `ping` once per connection:
// a route it lacks is not tried (input's background route), and work it can do before its
// encode is left to it (set-of-marks).
import type { HelperClient } from "../helper/client.js";
import type { HelloResult, PingResult } from "../helper/protocol.js";

// Keyed by the connection's hello answer, which the client replaces on every (re)connect: a
// helper relaunched behind the same client (one without marks, say) is asked again.
const pings = new WeakMap<HelloResult, PingResult>();

/**
 * The connection's `ping` answer, asked once per connection; undefined when it failed (then
 * assume the core protocol only, and ask again next time: a failure is never kept). With no
 * socket open the ping itself reconnects, so the answer is the next connection's, not the last.
 */
async function pingOf(client: HelperClient): Promise<PingResult | undefined> {
  const known = client.connected ? pings.get(client.helper) : undefined;
  if (known) return known;
  const result = await client.request("ping", {}).catch(() => undefined);
  if (result && client.connected) pings.set(client.helper, result);
  return result;
}

/**
 * Whether the background input route is there at all: `ping` lists what it needs, and a
 * helper missing any of it (Linux: `backgroundInput: false`) would only answer
 * background_unavailable. No answer: true, so the input request itself says what is possible.
 */
export async function offersBackgroundRoute(client: HelperClient): Promise<boolean> {
  const ping = await pingOf(client);
  if (!ping) return true;
  const needs = Object.values(ping.background);
  return needs.length > 0 && needs.every(Boolean);
}

/** Whether the helper paints `screenshot`'s marks itself (ping's `marks`); no answer: no. */
export async function offersMarks(client: HelperClient): Promise<boolean> {
  return (await pingOf(client))?.marks === true;
}
