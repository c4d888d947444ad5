// Chromium's answer to Cache.GetItems, kept between reads while the app sends no event at all.
// The answer holds only the browser's own UI (about 240 objects; the page is not in it) and cost
// Chromium ~7 ms of CPU and this side ~2.5 ms at every read, about a fifth of a read of the bench
// page, while the UI rarely changes. at-spi2-atk emits children-changed, property-change and
// state-changed for every ATK notification (it needs them for its own cache), plus the Cache
// interface's AddAccessible/RemoveAccessible, and every field of an item (parent, index, child
// count, name, role, description, states) changes only with one of those; libatspi's client
// side cache and the record mirror, which already serves Chromium's page, rely on the same
// events. A read takes the kept answer only if no event of the app at all came after it was
// asked (the mirror's mark), once the bus's Ping shows every earlier event has been handled.
// GTK 3 is not served this way: a GTK 3 change was seen to come with no event (docs/design.md).
import type { AccessibleRecord } from "./atspi-records.js";
import type { MirrorMark, RecordMirror } from "./record-mirror.js";

export class KeptCache {
  /** App bus name → its last GetItems answer and the mark it was asked under. */
  readonly #kept = new Map<string, { records: AccessibleRecord[]; mark: number }>();

  constructor(private readonly mirror: RecordMirror) {}

  /** The kept answer, if no event of the app came since it was asked. */
  get(appBus: string): readonly AccessibleRecord[] | undefined {
    const kept = this.#kept.get(appBus);
    if (!kept) return undefined;
    if (this.mirror.quietSince(appBus, kept.mark)) return kept.records;
    this.#kept.delete(appBus);
    return undefined;
  }

  /** An answer asked under `mark` (nothing is kept while the mirror keeps nothing). */
  keep(appBus: string, records: AccessibleRecord[], mark: MirrorMark): void {
    if (mark === undefined || !this.mirror.quietSince(appBus, mark)) return;
    this.#kept.set(appBus, { records, mark });
  }

  forgetBus(appBus: string): void {
    this.#kept.delete(appBus);
  }
}
