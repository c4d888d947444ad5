// Frames asked for at the start of a tree read. No AT-SPI call returns frames in bulk, so a read
// asks one GetExtents per framed node, and it could only ask once it knew the tree: after
// GetItems came back, the bus's Ping, the walk of what the cache lacks. A read now sends, with
// its first calls, GetExtents for every object the app's previous read framed; the app answers
// them while this side decodes the cache and walks, and the nodes still in the tree take those
// answers. Frames are never kept: each one is asked during the read that shows it, as before.
import type { Frame } from "../../src/helper/protocol.js";
import type { AccessibleRef, AtspiBus } from "./atspi-bus.js";
import { fetchFrame } from "./atspi-details.js";
import { refKey } from "./atspi-records.js";

/** Object key → its frame as asked at the start of this read (undefined: none, or the call failed). */
export type EarlyFrames = ReadonlyMap<string, Promise<Frame | undefined>>;

export class FramePrefetch {
  /** App bus name → the objects its last tree read asked frames for. */
  readonly #framed = new Map<string, AccessibleRef[]>();

  /** Sends, all at once, GetExtents for what the app's last read framed. */
  start(bus: AtspiBus, appBus: string): EarlyFrames {
    const early = new Map<string, Promise<Frame | undefined>>();
    for (const ref of this.#framed.get(appBus) ?? []) {
      early.set(refKey(ref), fetchFrame(bus, ref).catch(() => undefined));
    }
    return early;
  }

  /** What this read framed: the next read of the app asks these first. */
  remember(appBus: string, framed: AccessibleRef[]): void {
    this.#framed.set(appBus, framed);
  }

  forgetBus(appBus: string): void {
    this.#framed.delete(appBus);
  }
}
