// A click the window manager holds, made for real: a second X client grabs the button the way
// openbox does (synchronous pointer mode), so the server keeps the button down after the helper's
// XTEST press and release until that client lets the press go. click must wait for it, answer
// once it is let go, and fail with a code when it never is; a button someone else holds is not
// waited for. The test knows the helper is waiting, rather than hoping, by watching it read the
// pointer again after a read that showed the button down.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { click } from "../../helper/linux/input.js";
import { sharedX11, X11Client } from "../../helper/linux/x11-client.js";
import { ButtonHolder } from "./button-holder.js";
import { hasX11Tools, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

const LEFT = 1;
const RIGHT = 3;
const BUTTON1_MASK = 0x100;

describe.skipIf(!hasX11Tools())("a click the window manager holds", () => {
  let desktop: TestDesktop;
  let holder: ButtonHolder;
  let centre: [number, number];
  /** Set when the helper starts a pointer read after one that showed Button1 down. */
  let onPollWhileHeld: (() => void) | undefined;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    holder = await ButtonHolder.open(200, 150, 300, 200);
    const x = await sharedX11();
    await waitFor(() => x.isViewable(holder.window), "the test window to be mapped");
    const origin = await x.toRoot(holder.window);
    centre = [origin.x + 150, origin.y + 100];
    // Watch the helper's own pointer reads (the real ones, passed through unchanged).
    const read = x.pointer.bind(x);
    let lastHeld = false;
    x.pointer = async () => {
      if (lastHeld) onPollWhileHeld?.();
      const pointer = await read();
      lastHeld = (pointer.mask & BUTTON1_MASK) !== 0;
      return pointer;
    };
  });

  afterEach(async () => {
    await holder.stopHolding(LEFT);
    holder.events.length = 0;
  });

  afterAll(async () => {
    await holder?.close();
    await desktop?.stop();
  });

  /** Resolves once the helper, having seen the button held, reads the pointer again: it is waiting. */
  function helperWaiting(): Promise<void> {
    return new Promise((resolve) => (onPollWhileHeld = () => {
      onPollWhileHeld = undefined;
      resolve();
    }));
  }

  /** Fails the test if the click answers before `evidence`. */
  async function stillPending(clicked: Promise<unknown>, evidence: Promise<unknown>): Promise<void> {
    const early = clicked.then(
      () => Promise.reject(new Error("click answered while the window manager still held the button")),
      (error: unknown) => Promise.reject(error),
    );
    await Promise.race([evidence, early]);
  }

  it("waits while the click is held, and answers once it is let go, delivered", async () => {
    await holder.holdPresses(LEFT);
    const waiting = helperWaiting();
    const clicked = click(...centre);
    await stillPending(clicked, Promise.all([holder.held(), waiting]));
    await holder.release();
    await expect(clicked).resolves.toMatchObject({ route: "foreground" });
    // Let go, the press and its release reached the window under the pointer.
    await holder.next((e) => e.name === "ButtonPress" && e.window === holder.window && e.button === LEFT);
    await holder.next((e) => e.name === "ButtonRelease" && e.window === holder.window && e.button === LEFT);
  });

  it("fails with `failed` when the click is never let go, and says it may still land", async () => {
    await holder.holdPresses(LEFT);
    const started = Date.now();
    const clicked = click(...centre);
    await holder.held();
    await expect(clicked).rejects.toMatchObject({ code: "failed", message: expect.stringMatching(/still held 10000 ms after the click.*may still land/) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    // And it does land once let go.
    await holder.release();
    await holder.next((e) => e.name === "ButtonRelease" && e.window === holder.window && e.button === LEFT);
  }, 30_000);

  it("does not wait for a button someone else holds down", async () => {
    const other = await X11Client.connect();
    try {
      await other.fakeInput("motion", 0, ...centre);
      await other.fakeInput("buttonPress", RIGHT);
      await other.sync();
      await holder.next((e) => e.name === "ButtonPress" && e.button === RIGHT);
      await expect(click(...centre)).resolves.toMatchObject({ route: "foreground" });
      await holder.next((e) => e.name === "ButtonRelease" && e.button === LEFT);
    } finally {
      await other.fakeInput("buttonRelease", RIGHT);
      await other.sync();
      await other.close();
    }
  });
});
