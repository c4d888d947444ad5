// The live view: the desktop the cells drive, watched (or taken over) in a browser. x11vnc
// serves the X display on a loopback port with passwords — one that only watches, one that
// may also type and click — and websockify bridges it to noVNC's page (Debian's novnc).
// Both run detached and are recorded in live-view.json, so every caller reuses one view.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePorts } from "../client/free-ports.js";
import { desktopHome } from "../config/home.js";
import { DeskError } from "../helper/desk-error.js";
import { isAlive, signal } from "../process-signals.js";
import { desktopStatus } from "./virtual-desktop.js";
import { makeDirsSync } from "../make-dirs.js";

export const NOVNC_DIR = "/usr/share/novnc";

export interface LiveView {
  display: string;
  /** websockify's port on 127.0.0.1: noVNC's page and the WebSocket. */
  webPort: number;
  vncPort: number;
  /** Watch only. */
  viewPassword: string;
  /** Watch and control. */
  controlPassword: string;
  pids: { x11vnc: number; websockify: number };
}

export interface ViewOptions {
  home?: string;
  /** The X display to show; default the virtual desktop's, else $DISPLAY. */
  display?: string;
}

/** The running view of the display, or a new one. */
export async function startLiveView(options: ViewOptions = {}): Promise<LiveView> {
  const home = options.home ?? desktopHome();
  const { display, xauthority } = options.display ? { display: options.display, xauthority: process.env.XAUTHORITY } : await defaultDisplay(home);
  const existing = readView(home);
  if (existing && existing.display === display && isRunning(existing.pids.x11vnc, "x11vnc") && isRunning(existing.pids.websockify, "websockify")) return existing;
  if (existing) stopPids(existing);
  for (const tool of ["x11vnc", "websockify"]) if (!onPath(tool)) throw new DeskError("failed", `the live view needs ${tool}: apt-get install x11vnc novnc websockify`);
  if (!existsSync(join(NOVNC_DIR, "vnc.html"))) throw new DeskError("failed", `the live view needs noVNC in ${NOVNC_DIR}: apt-get install novnc`);
  makeDirsSync(home, 0o700);
  const [vncPort, webPort] = await freePorts(2);
  // VNC passwords are at most 8 characters; the ports listen on loopback only.
  const viewPassword = token();
  const controlPassword = token();
  const passwords = join(home, "live-view.passwd");
  writeFileSync(passwords, `${controlPassword}\n__BEGIN_VIEWONLY__\n${viewPassword}\n`, { mode: 0o600 });
  const log = openSync(join(home, "live-view.log"), "a", 0o600);
  const x11vnc = spawn(
    "x11vnc",
    ["-display", display, "-localhost", "-rfbport", String(vncPort!), "-passwdfile", passwords, "-forever", "-shared", "-noxdamage", "-quiet"],
    // The virtual desktop's X server takes only clients with its cookie.
    { detached: true, stdio: ["ignore", log, log], env: { ...process.env, ...(xauthority && { XAUTHORITY: xauthority }) } },
  );
  const websockify = spawn("websockify", ["--web", NOVNC_DIR, `127.0.0.1:${webPort!}`, `127.0.0.1:${vncPort!}`], { detached: true, stdio: ["ignore", log, log] });
  x11vnc.unref();
  websockify.unref();
  const view: LiveView = { display, webPort: webPort!, vncPort: vncPort!, viewPassword, controlPassword, pids: { x11vnc: x11vnc.pid!, websockify: websockify.pid! } };
  writeFileSync(viewPath(home), JSON.stringify(view), { mode: 0o600 });
  await waitForPage(view);
  return view;
}

/** Sends the view's processes that still run SIGTERM; returns their pids (none when no view ran). */
export function stopLiveView(home: string = desktopHome()): number[] {
  const view = readView(home);
  if (!view) return [];
  const pids = stopPids(view);
  writeFileSync(viewPath(home), "{}", { mode: 0o600 });
  return pids;
}

/**
 * noVNC's page for the view. `base` is where the browser reaches websockify: by default
 * http://127.0.0.1:PORT/; behind a remote JupyterLab, jupyter-server-proxy's `/proxy/PORT/`
 * under the server's base URL.
 */
export function viewUrl(view: LiveView, options: { interactive?: boolean; proxyBase?: string } = {}): string {
  const password = options.interactive ? view.controlPassword : view.viewPassword;
  const params = new URLSearchParams({ autoconnect: "1", resize: "scale", reconnect: "1", password, view_only: options.interactive ? "0" : "1" });
  if (options.proxyBase === undefined) return `http://127.0.0.1:${view.webPort}/vnc.html?${params}`;
  const base = `${options.proxyBase.replace(/\/?$/, "/")}proxy/${view.webPort}/`;
  params.set("path", `${base.replace(/^\//, "")}websockify`);
  return `${base}vnc.html?${params}`;
}

async function defaultDisplay(home: string): Promise<{ display: string; xauthority?: string }> {
  const desktop = await desktopStatus({ home });
  if (desktop.running && desktop.state) return { display: desktop.state.display, xauthority: desktop.state.env.XAUTHORITY };
  if (process.env.DISPLAY) return { display: process.env.DISPLAY, xauthority: process.env.XAUTHORITY };
  throw new DeskError("no_window", "no desktop to show: the virtual desktop is not running and DISPLAY is not set (run a desk call first, or deskbook desktop start)");
}

async function waitForPage(view: LiveView): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${view.webPort}/vnc.html`);
      if (response.ok && (await vncListening(view.vncPort))) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || !isAlive(view.pids.x11vnc) || !isAlive(view.pids.websockify)) {
      stopPids(view);
      throw new DeskError("failed", "the live view did not start; see live-view.log in DESKBOOK_HOME");
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function vncListening(port: number): Promise<boolean> {
  const { createConnection } = await import("node:net");
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The view of the desktop in `home` when its processes still run; for `deskbook desktop list`. */
export function runningView(home: string): LiveView | undefined {
  const view = readView(home);
  return view && isRunning(view.pids.x11vnc, "x11vnc") && isRunning(view.pids.websockify, "websockify") ? view : undefined;
}

function readView(home: string): LiveView | undefined {
  try {
    const view = JSON.parse(readFileSync(viewPath(home), "utf8")) as Partial<LiveView>;
    return typeof view.webPort === "number" && view.pids ? (view as LiveView) : undefined;
  } catch {
    return undefined;
  }
}

function viewPath(home: string): string {
  return join(home, "live-view.json");
}

/** SIGTERM to whichever of the view's two programs still runs under its pid; returns those pids. */
function stopPids(view: LiveView): number[] {
  const running = [
    { pid: view.pids.x11vnc, name: "x11vnc" },
    { pid: view.pids.websockify, name: "websockify" },
  ].filter(({ pid, name }) => isRunning(pid, name));
  for (const { pid } of running) signal(pid, "SIGTERM");
  return running.map(({ pid }) => pid);
}

/** Alive and still the program started (a pid can be reused). */
function isRunning(pid: number, name: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(name);
  } catch {
    return false;
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? "/usr/bin:/bin").split(":").some((dir) => dir && existsSync(join(dir, command)));
}

function token(): string {
  return randomBytes(6).toString("base64url").slice(0, 8);
}
