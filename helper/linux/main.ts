// The Linux helper process: `node dist/helper/linux/main.js [--socket PATH]`. Serves the helper
// protocol (docs/backend-protocol.md) on a private Unix socket until SIGTERM or SIGINT. Needs
// DISPLAY and the session bus (for the accessibility bus) in its environment. Prints
// "listening PATH" once it accepts connections. It does not quit when idle.
import { removeStaleProfiles } from "./fresh-profile.js";
import { parseArgs } from "node:util";
import { deskbookHome } from "../../src/config/home.js";
import { PROTOCOL_VERSION } from "../../src/helper/protocol.js";
import { helperSocketPath } from "../../src/helper/socket-path.js";
import { AppCatalog } from "./app-catalog.js";
import { Gate } from "./approval.js";
import { Dispatcher } from "./dispatch.js";
import { EscapeWatcher } from "./escape-watcher.js";
import type { InputFloor } from "./input-floor.js";
import { releaseHeldKeys, restoreKeymap } from "./input.js";
import { METHODS } from "./methods.js";
import { canCheckPeers, checkPeer } from "./peer-credentials.js";
import { HelperServer, type PeerCheck } from "./server.js";
import { Services } from "./services.js";
import { HELPER_VERSION } from "./status-methods.js";
import { prepareSocket, privateUmask, removeSocket, secureSocketFile, SocketSetupError } from "./socket-setup.js";
import { closeSharedX11, onDisplayLost, sharedX11 } from "./x11-client.js";

const SHUTDOWN_GRACE_MS = 3_000;

async function main(): Promise<void> {
  const socketPath = socketOption(process.argv.slice(2));
  if (!process.env.DISPLAY) fail('DISPLAY is not set. Run the helper inside a desktop session, or start the virtual desktop with "deskbook desktop start" and use its environment.');
  const restoreUmask = privateUmask();
  if ((await prepareSocket(socketPath)) === "taken") {
    process.stdout.write(`another helper is already listening on ${socketPath}; one helper per socket, so this one exits\n`);
    process.exit(0);
  }
  const services = new Services(deskbookHome());
  removeStaleProfiles(services.home);
  const identity = { version: HELPER_VERSION, platform: "linux", protocol: PROTOCOL_VERSION };
  const server = new HelperServer(new Dispatcher(services, new AppCatalog(services), new Gate(services), METHODS), { identity, checkPeer: await peerCheck() });
  services.watcher = await startWatcher(server, services.floor);
  await services.atspi().catch((error: unknown) => warn(`accessibility is not available yet: ${message(error)}`));
  await server.listen(socketPath);
  const inode = secureSocketFile(socketPath);
  // Apps the helper launches inherit its umask: they get the user's own, not 077.
  restoreUmask();
  const stop = installShutdown(() => shutdown(server, services, () => removeSocket(socketPath, inode)));
  // Without its display (the virtual desktop was stopped) the helper is of no use, and a
  // client must find nothing here so that it launches a new helper on the new desktop.
  await sharedX11();
  onDisplayLost(() => {
    warn("the X display went away; the helper exits");
    stop();
  });
  process.stdout.write(`listening ${socketPath}\n`);
}

/** Refuses other users' processes (and says so at start when it cannot tell who connects). */
async function peerCheck(): Promise<PeerCheck | null> {
  if (await canCheckPeers()) {
    const uid = process.getuid?.() ?? 0;
    return (socket) => checkPeer(socket, uid);
  }
  warn("`ss` (iproute2) is not installed, so the helper cannot check who connects; only the socket directory's 0700 mode keeps other users out");
  return null;
}

/** The socket first (no new client should find a helper that is going), then the X side. */
async function shutdown(server: HelperServer, services: Services, removeOwnSocket: () => void): Promise<void> {
  removeOwnSocket();
  await server.close();
  await services.watcher?.stop().catch(() => undefined);
  await releaseHeldKeys().catch(() => undefined);
  // Keycodes borrowed for typing go back, or the user's keyboard keeps them.
  await restoreKeymap().catch(() => undefined);
  await services.close();
  await closeSharedX11().catch(() => undefined);
}

function socketOption(argv: string[]): string {
  try {
    const { values } = parseArgs({ args: argv, options: { socket: { type: "string" } } });
    return values.socket ?? helperSocketPath();
  } catch (error) {
    return fail(`${message(error)}\nusage: node dist/helper/linux/main.js [--socket PATH]`);
  }
}

/**
 * The Escape watcher, broadcasting to every client; null (and a warning) when XInput2 is missing.
 * The Escape that answers an approval dialog (while it is shown, or just after) is the dialog's,
 * and must not stop every client's cell as well.
 */
async function startWatcher(server: HelperServer, floor: InputFloor): Promise<EscapeWatcher | null> {
  try {
    const watcher = await EscapeWatcher.start();
    watcher.onEscape(() => {
      if (!floor.escapeIsSwallowed()) server.broadcast({ event: "escape" });
    });
    return watcher;
  } catch (error) {
    warn(`the Escape watcher could not start, so Escape will not stop cells: ${message(error)}`);
    return null;
  }
}

/** SIGTERM and SIGINT clean up once (the keymap above all: borrowed keycodes must go back). */
function installShutdown(cleanup: () => Promise<void>): () => void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
    cleanup()
      .catch((error: unknown) => warn(`shutdown: ${message(error)}`))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return stop;
}

// A helper that dies takes every client's element indices and approvals with it: report, go on.
process.on("uncaughtException", (error) => warn(`unexpected error: ${error.stack ?? error.message}`));
process.on("unhandledRejection", (reason) => warn(`unexpected rejection: ${message(reason)}`));

function warn(text: string): void {
  process.stderr.write(`deskbook helper: ${text}\n`);
}

function fail(text: string): never {
  warn(text);
  process.exit(2);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

main().catch((error: unknown) => {
  fail(error instanceof SocketSetupError ? error.message : `cannot start: ${message(error)}`);
});
