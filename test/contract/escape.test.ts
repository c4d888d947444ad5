// The contract's Escape event: the user's Escape reaches every client that said hello; the
// helper's own Escape (sent through `keys`) never does.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import type { HelperEvent } from "../../src/helper/protocol.js";
import { announceSkip, nextWithin, profile, sleep, useHelper, waitFor, within, type RunningApp } from "./harness.js";

const skip = announceSkip("test/contract/escape.test.ts");
const execFileAsync = promisify(execFile);
/** How long "no event" is waited for. */
const QUIET_MS = 1000;

describe.skipIf(skip)("helper contract: Escape", () => {
  const session = useHelper();
  let calc: RunningApp;
  const events: HelperEvent[] = [];

  /** The user presses Escape: another process, not the helper. */
  const userPressesEscape = () =>
    execFileAsync(profile.userEscape.command, profile.userEscape.args, { env: session.env, timeout: 10_000 });

  beforeAll(async () => {
    session.client.onEvent((event) => events.push(event));
    // Escape goes to whatever has focus: an app the suite owns, not the user's terminal.
    calc = await session.launch(profile.calculator);
    await session.call("activate", { pid: calc.pid });
  }, 60_000);

  it("says its Escape watcher runs", async () => {
    expect(await session.call("permissions", {})).toMatchObject({ escapeWatcher: true, inputMonitoring: true });
  });

  it("sends {event: escape} to every client that said hello when the user presses Escape", async () => {
    const other = await session.raw();
    const stranger = await session.raw(false);
    events.length = 0;
    await userPressesEscape();
    await waitFor(async () => events.length > 0, "an escape event on the session's client", 3000);
    expect(events).toEqual([{ event: "escape" }]);
    expect(await within(3000, other.next(), "the escape event on a second connection")).toEqual({ event: "escape" });
    // A connection that never said hello is not a client yet.
    expect(await nextWithin(stranger, QUIET_MS)).toBe("quiet");
  });

  it("sends no event for an Escape the helper itself sends with keys", async () => {
    const other = await session.raw();
    await sleep(200);
    events.length = 0;
    expect(await session.call("keys", { pid: calc.pid, chords: [{ key: "Escape", mods: [] }] })).toMatchObject({ route: "foreground" });
    await sleep(QUIET_MS);
    expect(events).toEqual([]);
    expect(await nextWithin(other, 100)).toBe("quiet");
  });

  it("still reports the user's Escape right after its own", async () => {
    events.length = 0;
    await session.call("keys", { pid: calc.pid, chords: [{ key: "Escape", mods: [] }] });
    await userPressesEscape();
    await waitFor(async () => events.length > 0, "the user's escape event", 3000);
    await sleep(300);
    expect(events).toEqual([{ event: "escape" }]);
  });
});
