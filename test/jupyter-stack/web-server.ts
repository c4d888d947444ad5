/**
 * A Jupyter web server (Debian's `jupyter server` or `jupyter notebook`, JupyterLab from the
 * peers' venv) started in a JupyterStack on a free loopback port with a fresh token, ready
 * once its `/api` answers. The stack's cleanup ends it and the kernels it started.
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
  timeoutMs?: number;
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
  const child = stack.spawn(
    program,
    [
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
    { cwd: stack.dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout!.setEncoding("utf8").on("data", (t: string) => (log += t));
  child.stderr!.setEncoding("utf8").on("data", (t: string) => (log += t));
  const baseUrl = `http://127.0.0.1:${port}/`;
  const name = spec.command.map((part) => part.split("/").pop()).join(" ");
  try {
    await waitFor(`${name} at ${baseUrl}api`, spec.timeoutMs ?? 60_000, async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
      const response = await fetch(`${baseUrl}api`);
      return response.ok ? true : undefined;
    });
  } catch (err) {
    await stopProcess(child);
    throw new Error(`${String(err)}\n--- ${name} log\n${log}`);
  }
  return {
    child,
    baseUrl,
    token,
    log: () => log,
    url: (path) => `${baseUrl}${path.replace(/^\//, "")}${path.includes("?") ? "&" : "?"}token=${token}`,
  };
}
