// What a helper offers beyond the protocol's core, read from its `ping` once per connection:
// a route it lacks is not tried (input's background route), and work it can do before its
// encode is left to it (set-of-marks).
import type { HelperClient } from "../helper/client.js";
import type { PingResult } from "../helper/protocol.js";

const pings = new WeakMap<HelperClient, Promise<PingResult | undefined>>();

/** The connection's `ping` answer, asked once; undefined when it failed (then assume the core protocol only). */
function pingOf(client: HelperClient): Promise<PingResult | undefined> {
  let known = pings.get(client);
  if (!known) {
    known = client.request("ping", {}).then(
      (result) => result,
      () => undefined,
    );
    pings.set(client, known);
  }
  return known;
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
