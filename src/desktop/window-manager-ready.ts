// When a virtual desktop may call itself ready: once its window manager really manages windows.
// openbox takes SubstructureRedirect on the root and sets _NET_SUPPORTING_WM_CHECK first
// (screen_annex), then reads its config, loads its theme and fonts, adopts the windows already
// mapped, and only then serves events. A window mapped before the redirect is taken is mapped
// unmanaged and reparented later; one mapped after it waits, unmapped, with its MapRequest queued
// until openbox reaches its event loop. So ready means all three, checked in this order (the
// probe of step 2 must never be the one that takes the redirect while openbox starts):
// 1. the EWMH check: the root's _NET_SUPPORTING_WM_CHECK names a live window whose own
//    _NET_SUPPORTING_WM_CHECK names itself;
// 2. the redirect is taken: selecting SubstructureRedirect on the root here fails with BadAccess;
// 3. the WM serves events: it answers a _NET_REQUEST_FRAME_EXTENTS about an unmapped window of
//    ours by writing _NET_FRAME_EXTENTS on it, which it does from its event loop only.
import { DeskError } from "../helper/desk-error.js";
import type { X11Client } from "../../helper/linux/x11-client.js";
import type { XCookie } from "./xauthority.js";

const PROPERTY_CHANGE_MASK = 0x400000;
const SUBSTRUCTURE_REDIRECT_MASK = 0x100000;
/** The predefined atom WINDOW (a property's type). */
const XA_WINDOW = 33;
/** Core protocol error codes. */
const BAD_WINDOW = 3;
const BAD_ACCESS = 10;
const POLL_MS = 20;
const RESEND_MS = 250;

/**
 * Resolves once the window manager on `display` manages windows (above); rejects with a
 * `failed` DeskError naming the step it did not reach within `timeoutMs`.
 */
export async function waitForWindowManager(display: string, cookie: XCookie, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Loaded here, not at the top: `deskbook` commands that start no desktop never load the X client.
  const { X11Client } = await import("../../helper/linux/x11-client.js");
  const x = await X11Client.connect(display, cookie);
  const late = (step: string): DeskError =>
    new DeskError("failed", `the window manager (openbox) did not ${step} within ${timeoutMs / 1000} s of the display starting`);
  try {
    if (!(await until(() => hasSupportingWindow(x), deadline))) throw late("set _NET_SUPPORTING_WM_CHECK on the root");
    if (!(await until(() => holdsRedirect(x), deadline))) throw late("take SubstructureRedirect on the root");
    if (!(await servesEvents(x, deadline))) throw late("answer a _NET_REQUEST_FRAME_EXTENTS (it never reached its event loop)");
  } finally {
    await x.close();
  }
}

async function until(probe: () => Promise<boolean>, deadline: number): Promise<boolean> {
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/** The EWMH rule: the root names a window, and that window names itself (a stale id names nothing). */
async function hasSupportingWindow(x: X11Client): Promise<boolean> {
  const named = await supportingWindow(x, x.root);
  if (named === undefined) return false;
  try {
    return (await supportingWindow(x, named)) === named;
  } catch (error) {
    if (xErrorCode(error) === BAD_WINDOW) return false;
    throw error;
  }
}

async function supportingWindow(x: X11Client, window: number): Promise<number | undefined> {
  const prop = await x.property(window, "_NET_SUPPORTING_WM_CHECK", XA_WINDOW);
  return prop && prop.format === 32 && prop.data.length >= 4 ? prop.data.readUInt32LE(0) : undefined;
}

/** Only one client may select SubstructureRedirect on a window: BadAccess means someone holds it. */
async function holdsRedirect(x: X11Client): Promise<boolean> {
  try {
    await x.selectInput(x.root, SUBSTRUCTURE_REDIRECT_MASK);
  } catch (error) {
    if (xErrorCode(error) === BAD_ACCESS) return true;
    throw error;
  }
  // Nobody held it and now this connection does: give it back at once.
  await x.selectInput(x.root, 0);
  return false;
}

/**
 * Asks for frame extents until the WM writes them (each answer is a PropertyNotify here), up to
 * `deadline`. Asked again every RESEND_MS: nothing else in the protocol says the request arrived.
 */
async function servesEvents(x: X11Client, deadline: number): Promise<boolean> {
  const extents = await x.atom("_NET_FRAME_EXTENTS");
  const window = await x.createUnmappedWindow(PROPERTY_CHANGE_MASK);
  let answered = false;
  const unsubscribe = x.onEvent((event) => {
    if (event.name === "PropertyNotify" && event.window === window && event.atom === extents) answered = true;
  });
  try {
    while (!answered && Date.now() < deadline) {
      await x.rootClientMessage(window, "_NET_REQUEST_FRAME_EXTENTS", [0, 0, 0, 0, 0]);
      const askedAt = Date.now();
      while (!answered && Date.now() < Math.min(deadline, askedAt + RESEND_MS)) await sleep(POLL_MS);
    }
    return answered;
  } finally {
    unsubscribe();
    await x.destroyWindow(window).catch(() => undefined);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function xErrorCode(error: unknown): number | undefined {
  return (error as { error?: number } | null)?.error;
}
