// Accessibility events for waitChange: AT-SPI apps emit an event only when some listener has
// registered it with the registry, and the bus delivers it only to connections with a matching
// rule. Both are set up on the first waitChange, or the first tree read that needs the record
// mirror (until then apps stay quiet), for the events that mean a tree or its windows changed:
// children added or removed, a name, description or value changed, a state changed, text
// changed, and every window event.
import type { AtspiBus } from "./atspi-bus.js";
import { EventCounter, type ChangeWait } from "./event-counter.js";

const EVENTS = [
  "object:children-changed",
  "object:property-change",
  "object:state-changed",
  "object:text-changed",
  "window:",
] as const;
const INTERFACES = ["org.a11y.atspi.Event.Object", "org.a11y.atspi.Event.Window"] as const;
/** Received for the record mirror only (an app's cache gained or lost an object), not counted as changes. */
const MIRROR_INTERFACES = ["org.a11y.atspi.Cache"] as const;

export class AtspiEvents {
  readonly #counter = new EventCounter<string>();
  #started: Promise<void> | null = null;

  constructor(private readonly bus: AtspiBus) {
    bus.onSignal((sender, iface) => {
      if ((INTERFACES as readonly string[]).includes(iface)) this.#counter.bump(sender);
    });
    bus.onNameLost((name) => this.#counter.drop(name));
  }

  /** Waits for an event of the app behind bus name `sender` (see EventCounter.wait). */
  async wait(sender: string, after: number | undefined, timeoutMs: number): Promise<ChangeWait> {
    await this.start();
    return this.#counter.wait(sender, after, timeoutMs);
  }

  /** Has apps emit these events and the bus deliver them here (once; waitChange and the record mirror share it). */
  start(): Promise<void> {
    this.#started ??= this.subscribe().catch((error: unknown) => {
      this.#started = null;
      throw error;
    });
    return this.#started;
  }

  private async subscribe(): Promise<void> {
    for (const iface of [...INTERFACES, ...MIRROR_INTERFACES]) await this.bus.addMatch(`type='signal',interface='${iface}'`);
    for (const event of EVENTS) await this.bus.registerEvent(event);
  }
}
