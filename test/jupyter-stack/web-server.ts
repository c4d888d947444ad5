/**
 * A Jupyter web server (Debian's `jupyter server` or `jupyter notebook`, JupyterLab from the
 * peers' venv) started in a JupyterStack on a free loopback port with a fresh token, ready
 * once its `/api` answers. The stack's cleanup ends it and the kernels it started.
 * startService is the part that fits any server (Enterprise Gateway too): start it, keep its
 * log, wait until a URL answers.
 */
import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { freePorts, stopProcess, waitFor, type JupyterStack } from "./stack.js";

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
  command: [string, ...string[]];
  /** Ready once a GET here answers 2xx (with the token, if given). */
  readyUrl: string;
  token?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface Service {
  child: ChildProcess;
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
  const [port] = await freePorts(1);
  const token = randomBytes(24).toString("hex");
  const [program, ...subcommand] = spec.command;
  const rootOption = spec.app === "ServerApp" ? "root_dir" : "notebook_dir";
  const name = spec.command.map((part) => part.split("/").pop()).join(" ");
  const baseUrl = `http://127.0.0.1:${port}/`;
  const { child, log } = await startService(stack, {
    name,
    command: [
      program,
      ...subcommand,
      "--no-browser",
      "--allow-root", // CI runs as root; Jupyter refuses that without this flag
      "--ip=127.0.0.1",
      `--port=${port}`,
      `--${spec.app}.port_retries=0`, // fail loudly instead of silently moving to another port
      `--${spec.tokenOption ?? `${spec.app}.token`}=${token}`,
      `--${spec.app}.${rootOption}=${stack.dir}`,
      ...(spec.args ?? []),
    ],
    readyUrl: `${baseUrl}api`,
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

/** Starts a server in the stack, keeping what it prints, and waits until `readyUrl` answers; throws with its log if it exits or never does. */
export async function startService(stack: JupyterStack, spec: ServiceSpec): Promise<Service> {
  const [program, ...args] = spec.command;
  const child = stack.spawn(program, args, { cwd: stack.dir, stdio: ["ignore", "pipe", "pipe"], ...(spec.env && { env: spec.env }) });
  let log = "";
  child.stdout!.setEncoding("utf8").on("data", (t: string) => (log += t));
  child.stderr!.setEncoding("utf8").on("data", (t: string) => (log += t));
  const headers: Record<string, string> = spec.token ? { Authorization: `token ${spec.token}` } : {};
  try {
    await waitFor(`${spec.name} at ${spec.readyUrl}`, spec.timeoutMs ?? 60_000, async () => {
      if (child.exitCode !== null) throw new Error(`${spec.name} exited with ${child.exitCode}`);
      return (await fetch(spec.readyUrl, { headers })).ok ? true : undefined;
    });
  } catch (err) {
    await stopProcess(child);
    throw new Error(`${String(err)}\n--- ${spec.name} log\n${log}`);
  }
  return { child, log: () => log };
}
