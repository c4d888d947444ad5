// What every method shares: DESKBOOK_HOME, the config (re-read on each use, so edits apply at
// once), the AT-SPI connection (opened on first use, retried while it fails, replaced once
// broken), the Escape watcher's state, and the input floor (input and approval dialogs never
// overlap).
import { basename } from "node:path";
import { ConfigError, loadConfig, type DeskbookConfig } from "../../src/config/config.js";
import { DeskError } from "../../src/helper/desk-error.js";
import { Atspi } from "./atspi.js";
import type { EscapeWatcher } from "./escape-watcher.js";
import { InputFloor } from "./input-floor.js";
import { FreshProfiles } from "./fresh-profile.js";

export class Services {
  #atspi: Promise<Atspi> | null = null;
  /** Set by main once the watcher runs. */
  watcher: EscapeWatcher | null = null;
  /** Held by every input sequence and every approval dialog. */
  readonly floor = new InputFloor();
  /** Apps launched with `fresh: true`, and their profiles. */
  readonly profiles: FreshProfiles;
  /** The per-kernel desktop this helper serves (DESKBOOK_DESKTOP_DIR's name), for actions.log; undefined on the shared one. */
  readonly desktop: string | undefined;

  constructor(
    readonly home: string,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.profiles = new FreshProfiles(home);
    this.desktop = env.DESKBOOK_DESKTOP_DIR?.trim() ? basename(env.DESKBOOK_DESKTOP_DIR.trim()) : undefined;
  }

  /** config.json as it is now; an invalid file fails the call (a gate must not guess). */
  config(): DeskbookConfig {
    try {
      return loadConfig(this.home);
    } catch (error) {
      if (error instanceof ConfigError) throw new DeskError("failed", error.message);
      throw error;
    }
  }

  /** The AT-SPI connection; `permission` while the accessibility bus cannot be reached. Replaced once broken. */
  async atspi(): Promise<Atspi> {
    const pending = this.#atspi;
    const current = pending ? await pending.catch(() => null) : null;
    if (current?.broken && this.#atspi === pending) {
      // Its element indices die with it: later calls with them answer stale_index.
      current.close();
      this.#atspi = null;
    }
    if (!this.#atspi) {
      this.#atspi = Atspi.connect().catch((error: unknown) => {
        this.#atspi = null;
        const reason = error instanceof Error ? error.message : String(error);
        throw new DeskError("permission", `the accessibility bus cannot be reached (is at-spi2-core running?): ${reason}`);
      });
    }
    return this.#atspi;
  }

  /** The connection if it is open, without connecting. */
  async atspiIfConnected(): Promise<Atspi | null> {
    return this.#atspi ? this.#atspi.catch(() => null) : null;
  }

  async close(): Promise<void> {
    const atspi = await this.atspiIfConnected();
    atspi?.close();
    this.#atspi = null;
  }
}
