// `deskbook desktop start|stop|status [--json]`: a thin wrapper over src/desktop/virtual-desktop.ts.
import {
  desktopStatus,
  formatEnvExports,
  SCREEN_GEOMETRY,
  startDesktop,
  stopDesktop,
  type DesktopOptions,
  type DesktopStatus,
} from "../desktop/virtual-desktop.js";
import { startLiveView, stopLiveView, viewUrl } from "../desktop/live-view.js";
import { formatListing, listDesktops } from "../desktop/desktop-list.js";
import { deskbookHome } from "../config/home.js";

export const DESKTOP_USAGE = `usage: deskbook desktop <start | stop | status | view | list> [--json]

  start    start a virtual desktop (Xvfb ${SCREEN_GEOMETRY}, D-Bus, AT-SPI, openbox), or reuse the
           running one; prints the environment to use:  eval "$(deskbook desktop start)"
  stop     close its apps (a close request, then SIGTERM, then SIGKILL), then stop every
           process of the desktop and forget it
  status   show whether each part is alive (exit status 1 when the desktop is not running)
  view     start the live view (x11vnc on 127.0.0.1 with passwords, noVNC through websockify)
           of the virtual desktop, or of $DISPLAY, and print its URL (watch only);
           --interactive prints the URL that can also click and type; --stop ends the view

  list     every desktop of DESKBOOK_HOME, the shared one and each kernel's own: its kernel,
           display and live-view URL (when a view runs)

  --json   machine-readable output
`;

export interface DesktopIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  options?: DesktopOptions;
}

const defaultIo: DesktopIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export async function runDesktop(args: string[], io: DesktopIo = defaultIo): Promise<number> {
  const json = args.includes("--json");
  if (args[0] === "view") return view(args.slice(1), io);
  const rest = args.filter((arg) => arg !== "--json");
  if (rest.length !== 1 || rest[0] === "--help" || rest[0] === "-h") {
    (rest[0] === "--help" || rest[0] === "-h" ? io.stdout : io.stderr)(DESKTOP_USAGE);
    return rest[0] === "--help" || rest[0] === "-h" ? 0 : 2;
  }
  switch (rest[0]) {
    case "start":
      return start(json, io);
    case "stop":
      return stop(json, io);
    case "status":
      return status(json, io);
    case "list": {
      const listings = await listDesktops(io.options?.home ?? deskbookHome());
      io.stdout(json ? `${JSON.stringify(listings)}\n` : formatListing(listings));
      return 0;
    }
    default:
      io.stderr(`deskbook desktop: unknown subcommand ${JSON.stringify(rest[0])}\n\n${DESKTOP_USAGE}`);
      return 2;
  }
}

async function view(args: string[], io: DesktopIo): Promise<number> {
  const unknown = args.filter((arg) => !["--interactive", "--stop", "--json"].includes(arg));
  if (unknown.length > 0) {
    io.stderr(`deskbook desktop view: unknown option ${JSON.stringify(unknown[0])}\n\n${DESKTOP_USAGE}`);
    return 2;
  }
  const home = io.options?.home;
  if (args.includes("--stop")) {
    io.stderr(stopLiveView(home).length > 0 ? "deskbook: live view stopped\n" : "deskbook: no live view was running\n");
    return 0;
  }
  try {
    const live = await startLiveView(home === undefined ? {} : { home });
    const url = viewUrl(live, { interactive: args.includes("--interactive") });
    io.stdout(args.includes("--json") ? `${JSON.stringify({ url, display: live.display, webPort: live.webPort })}\n` : `${url}\n`);
    io.stderr(`deskbook: live view of ${live.display}; open the URL in a browser on this machine (or through an SSH tunnel to port ${live.webPort}). deskbook desktop view --stop ends it.\n`);
    return 0;
  } catch (error) {
    io.stderr(`deskbook desktop view: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function start(json: boolean, io: DesktopIo): Promise<number> {
  const result = await startDesktop(io.options);
  if (json) {
    io.stdout(`${JSON.stringify({ reused: result.reused, env: result.env, state: result.state })}\n`);
    return 0;
  }
  // The note goes to stderr so that stdout stays eval-able.
  io.stderr(`deskbook: ${result.reused ? "reusing" : "started"} virtual desktop ${result.state.display}\n`);
  io.stdout(formatEnvExports(result.env));
  return 0;
}

async function stop(json: boolean, io: DesktopIo): Promise<number> {
  const stopped = await stopDesktop(io.options);
  if (json) io.stdout(`${JSON.stringify({ stopped })}\n`);
  else io.stderr(stopped ? "deskbook: virtual desktop stopped\n" : "deskbook: no virtual desktop was running\n");
  return 0;
}

async function status(json: boolean, io: DesktopIo): Promise<number> {
  const current = await desktopStatus(io.options);
  io.stdout(json ? `${JSON.stringify(current)}\n` : describeStatus(current));
  return current.running ? 0 : 1;
}

function describeStatus(current: DesktopStatus): string {
  if (!current.state) return `no virtual desktop (${current.statePath})\n`;
  const lines = [
    `virtual desktop ${current.state.display}: ${current.running ? "running" : "NOT running"}`,
    ...current.parts.map((p) => `  ${p.name.padEnd(8)} pid ${String(p.pid).padEnd(8)} ${p.alive ? "alive" : "dead"}`),
  ];
  if (current.running) lines.push("", formatEnvExports(current.state.env).trimEnd());
  return `${lines.join("\n")}\n`;
}
