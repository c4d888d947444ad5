/**
 * JupyterLab 4 (with Notebook 7 served by the same server) from the pinned peers in
 * .venv/peers, the way a user runs it: the Deskbook kernelspec installed into that
 * environment with `deskbook install --sys-prefix`, a token, a loopback port, a scratch
 * root directory. No DISPLAY, so the kernel starts the virtual desktop by itself; the
 * apps the test drives are pre-approved in the stack's config.json.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { CLI, JupyterStack, REPO_ROOT } from "../jupyter-stack/stack.js";
import { startWebServer, type WebServer } from "../jupyter-stack/web-server.js";

const execFileAsync = promisify(execFile);

export const VENV_BIN = join(REPO_ROOT, ".venv", "peers", "bin");
export const CHROMIUM = "/usr/bin/chromium";

/** What is missing for the browser tests on this machine (empty when they can run). */
export function missingForBrowser(): string[] {
  const tools = ["Xvfb", "openbox", "dbus-daemon", "galculator"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  if (!existsSync(join(VENV_BIN, "jupyter-lab"))) tools.push(".venv/peers (bash scripts/setup-python.sh)");
  if (!existsSync(CHROMIUM)) tools.push(CHROMIUM);
  return tools;
}

export interface LabServer {
  stack: JupyterStack;
  baseUrl: string;
  token: string;
  /** What `deskbook install --sys-prefix` printed. */
  installOutput: string;
  log(): string;
  /** `path` on the server, with the token. */
  url(path: string): string;
  stop(): Promise<void>;
}

/** Front-end settings a fresh user would dismiss: no news toast, no update check, every cell in the DOM. */
const USER_SETTINGS: Record<string, object> = {
  "@jupyterlab/apputils-extension/notification.jupyterlab-settings": { fetchNews: "false", checkForUpdates: false },
  // Windowed notebooks drop off-screen cells from the DOM; the test reads earlier cells.
  "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": { windowingMode: "none" },
};

/**
 * The peers environment also serves other tests (real-time collaboration, server-side
 * execution); those extensions are switched off here so the page is JupyterLab as a plain
 * `pip install jupyterlab notebook` brings it, talking to the kernel over its websocket.
 */
const PLAIN_SERVER: Record<string, boolean> = {
  jupyter_server_nbmodel: false,
  jupyter_collaboration: false,
  jupyter_server_ydoc: false,
  jupyter_docprovider: false,
  jupyter_collaboration_ui: false,
  jupyter_server_fileid: false,
};
const PLAIN_FRONTEND: Record<string, boolean> = {
  "@datalayer/jupyter-server-nbmodel": true,
  "@jupyter/collaboration-extension": true,
  "@jupyter/docprovider-extension": true,
};

async function writeJson(path: string, value: object): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(value));
}

export async function startLabServer(allow: string[]): Promise<LabServer> {
  const stack = await JupyterStack.create();
  // The kernel must be found through the virtual environment's sys.prefix, not the stack's prefix.
  delete stack.env.JUPYTER_PATH;
  for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS", "VIRTUAL_ENV"]) delete stack.env[name];
  Object.assign(stack.env, {
    PATH: `${VENV_BIN}:/usr/bin:/bin`,
    XDG_CONFIG_HOME: join(stack.dir, "xdg-config"),
    XDG_CACHE_HOME: join(stack.dir, "xdg-cache"),
    XDG_DATA_HOME: join(stack.dir, "xdg-data"),
    GSETTINGS_BACKEND: "memory",
  });
  await mkdir(stack.home, { recursive: true, mode: 0o700 });
  await writeFile(join(stack.home, "config.json"), JSON.stringify({ allow }));
  const configDir = stack.env.JUPYTER_CONFIG_DIR!;
  await writeJson(join(configDir, "jupyter_server_config.json"), { ServerApp: { jpserver_extensions: PLAIN_SERVER } });
  await writeJson(join(configDir, "labconfig", "page_config.json"), { disabledExtensions: PLAIN_FRONTEND });
  const settingsDir = join(configDir, "lab", "user-settings");
  for (const [file, settings] of Object.entries(USER_SETTINGS)) {
    await writeJson(join(settingsDir, file), settings);
  }
  const install = await execFileAsync(process.execPath, [CLI, "install", "--sys-prefix"], { env: stack.env, timeout: 30_000 });

  let server: WebServer;
  try {
    server = await startWebServer(stack, {
      command: [join(VENV_BIN, "jupyter-lab")],
      app: "ServerApp",
      tokenOption: "IdentityProvider.token",
      // window.jupyterapp, so cells are filled in through the document model, not by typing.
      args: ["--LabApp.expose_app_in_browser=True", "--JupyterNotebookApp.expose_app_in_browser=True"],
    });
  } catch (err) {
    await stack.cleanup();
    throw err;
  }
  return {
    stack,
    baseUrl: server.baseUrl,
    token: server.token,
    installOutput: install.stdout + install.stderr,
    log: server.log,
    url: server.url,
    stop: () => stack.cleanup(),
  };
}
