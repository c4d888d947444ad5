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

export const DESKTOP_USAGE = `usage: deskbook desktop <start | stop | status> [--json]

  start    start a virtual desktop (Xvfb ${SCREEN_GEOMETRY}, D-Bus, AT-SPI, openbox), or reuse the
           running one; prints the environment to use:  eval "$(deskbook desktop start)"
  stop     close its apps (a close request, then SIGTERM, then SIGKILL), then stop every
           process of the desktop and forget it
  status   show whether each part is alive (exit status 1 when the desktop is not running)

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
    default:
      io.stderr(`deskbook desktop: unknown subcommand ${JSON.stringify(rest[0])}\n\n${DESKTOP_USAGE}`);
      return 2;
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
