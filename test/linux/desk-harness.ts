// The desk API (src/desk) in this process, over the real Linux helper on a private virtual
// desktop: for tests of desk verbs against real apps without a kernel in between.
import { loadConfig } from "../../src/config/config.js";
import { Desk } from "../../src/desk/desk.js";
import type { Bundle, DeskContext } from "../../src/desk/desk-context.js";
import { HelperClient } from "../../src/helper/client.js";
import { startHelperDesktop, type HelperDesktop, type RunningHelper } from "./helper-harness.js";

export interface DeskOnHelper {
  desk: Desk;
  client: HelperClient;
  helper: RunningHelper;
  machine: HelperDesktop;
  /** What reads showed, newest last. */
  shown: Bundle[];
  stop(): Promise<void>;
}

/** A desktop, a helper with `config` (default allow-all), and a Desk bound to it. */
export async function startDeskOnHelper(config: Record<string, unknown> = { approval: "allow-all" }): Promise<DeskOnHelper> {
  const machine = await startHelperDesktop();
  machine.writeConfig(config);
  const helper = await machine.startHelper();
  const client = await HelperClient.connect({ socketPath: helper.socket, clientName: "desk-test", requestTimeoutMs: 30_000 });
  const shown: Bundle[] = [];
  const context: DeskContext = {
    client: async () => client,
    config: () => loadConfig(machine.home),
    control: {
      runningCell: () => 1,
      checkStopped: () => undefined,
      stop: (reason) => {
        throw new Error(`Stopped: ${reason}`);
      },
    },
    show: (bundle) => void shown.push(bundle),
    freshApps: () => false,
    launched: () => undefined,
    live: () => ({ show: (bundle) => void shown.push(bundle) }),
  };
  return {
    desk: new Desk(context),
    client,
    helper,
    machine,
    shown,
    async stop() {
      await client.close();
      await machine.stop();
    },
  };
}
