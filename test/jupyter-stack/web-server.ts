/**
 * A Jupyter web server (Debian's `jupyter server` or `jupyter notebook`, JupyterLab from the
 * peers' venv) started in a JupyterStack on a loopback port with a fresh token, ready once its
 * `/api` answers. The stack's cleanup ends it and the kernels it started. startService is the
 * part that fits any server (Enterprise Gateway too): start it, keep its log, learn its port,
 * wait until it answers.
 *
 * Every server here is told to listen on port 0, so the OS picks a free port as it binds:
 * a port picked by the test and closed before the server binds it can be taken by another
 * process first (tests run in parallel), and the server then fails to start. jupyter_server 1,
 * Notebook 6 and Enterprise Gateway 3 bind port 0 at once but print and record port 0, so the
 * port is read from the sockets the process listens on (listening-ports.ts), the one where the
 * server answers. jupyter_server 2 reads the port the OS gave it from a socket it then closes
 * and binds that port again: in between another process can take it, the server exits saying
 * the port "is already in use", and startService starts it again.
 */
import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { listeningPorts } from "../support/listening-ports.js";
import { stopProcess, waitFor, type JupyterStack } from "./stack.js";

export interface WebServerSpec {
  /** The program and its subcommand, if any: [JUPYTER, "server"], [jupyter-lab]. */
  command: [string, ...string[]];
  /** The traitlets class that holds its port_retries and root folder options. */
  app: "ServerApp" | "NotebookApp";
  /** The option that sets the token (jupyter_server 2 moved it to IdentityProvider.token); default `<app>.token`. */
  tokenOption?: string;
  /** More options for the command line. */
  args?: string[];
  /** Its environment, in place of the stack's. */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface ServiceSpec {
  /** For messages: "Enterprise Gateway". */
  name: string;
  /** The command line; it makes the server listen on 127.0.0.1 port 0. */
  command: [string, ...string[]];
  /** Ready once a GET of this path under the server answers 2xx (with the token, if given): "api". */
  readyPath: string;
  token?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface Service {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>/`, the port the server bound. */
  baseUrl: string;
  /** What it printed so far. */
  log(): string;
}

export interface WebServer {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>/` */
  baseUrl: string;
  token: string;
  /** What the server printed so far. */
  log(): string;
  /** `path` under the server, with the token as a query parameter (for a browser). */
  url(path: string): string;
}

export async function startWebServer(stack: JupyterStack, spec: WebServerSpec): Promise<WebServer> {
  const token = randomBytes(24).toString("hex");
  const [program, ...subcommand] = spec.command;
  const rootOption = spec.app === "ServerApp" ? "root_dir" : "notebook_dir";
  const name = spec.command.map((part) => part.split("/").pop()).join(" ");
  const { child, baseUrl, log } = await startService(stack, {
    name,
    command: [
      program,
      ...subcommand,
      "--no-browser",
      "--allow-root", // CI runs as root; Jupyter refuses that without this flag
      "--ip=127.0.0.1",
      "--port=0",
      `--${spec.app}.port_retries=0`, // port 0 only: the OS picks
      `--${spec.tokenOption ?? `${spec.app}.token`}=${token}`,
      `--${spec.app}.${rootOption}=${stack.dir}`,
      ...(spec.args ?? []),
    ],
    readyPath: "api",
    ...(spec.env && { env: spec.env }),
    ...(spec.timeoutMs !== undefined && { timeoutMs: spec.timeoutMs }),
  });
  return {
    child,
    baseUrl,
    token,
    log,
    url: (path) => `${baseUrl}${path.replace(/^\//, "")}${path.includes("?") ? "&" : "?"}token=${token}`,
  };
}

/** How many times a server that lost its port is started again (jupyter_server 2, above). */
const STARTS = 3;

/**
 * Starts a server in the stack, keeping what it prints, and waits until it answers `readyPath`
 * on a port it listens on; throws with its log if it exits or never does.
 */
export async function startService(stack: JupyterStack, spec: ServiceSpec): Promise<Service> {
  for (let start = 1; ; start++) {
    const started = await startOnce(stack, spec);
    if ("service" in started) return started.service;
    if (start === STARTS || !/is already in use/.test(started.log)) throw started.error;
  }
}

async function startOnce(stack: JupyterStack, spec: ServiceSpec): Promise<{ service: Service } | { error: Error; log: string }> {
  const [program, ...args] = spec.command;
  const child = stack.spawn(program, args, { cwd: stack.dir, stdio: ["ignore", "pipe", "pipe"], ...(spec.env && { env: spec.env }) });
  let log = "";
  child.stdout!.setEncoding("utf8").on("data", (t: string) => (log += t));
  child.stderr!.setEncoding("utf8").on("data", (t: string) => (log += t));
  const headers: Record<string, string> = spec.token ? { Authorization: `token ${spec.token}` } : {};
  const answers = async (baseUrl: string): Promise<boolean> => (await fetch(`${baseUrl}${spec.readyPath}`, { headers }).catch(() => undefined))?.ok === true;
  try {
    // waitFor keeps trying past a thrown error; an exit ends the wait at once, for a next start.
    const found = await waitFor(`${spec.name} to answer /${spec.readyPath}`, spec.timeoutMs ?? 60_000, async () => {
      if (child.exitCode !== null || child.signalCode !== null) return { exitCode: child.exitCode ?? child.signalCode };
      for (const port of await listeningPorts(child.pid!)) {
        const baseUrl = `http://127.0.0.1:${port}/`;
        if (await answers(baseUrl)) return { baseUrl };
      }
      return undefined;
    });
    if ("exitCode" in found) throw new Error(`${spec.name} exited with ${found.exitCode}`);
    return { service: { child, baseUrl: found.baseUrl, log: () => log } };
  } catch (err) {
    await stopProcess(child);
    return { error: new Error(`${String(err)}\n--- ${spec.name} log\n${log}`), log };
  }
}
