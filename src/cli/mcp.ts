// `deskbook mcp [--server URL --token TOKEN --kernel ID]`: the MCP server on stdio. Without
// flags it starts its own Deskbook kernel on the first call; with them it attaches to a
// kernel a person already has open in JupyterLab (docs/agents.md).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadConfig } from "../config/config.js";
import { deskbookHome } from "../config/home.js";
import { createMcpServer } from "../mcp/server.js";
import { KernelSession } from "../mcp/kernel-session.js";
import { AttachedSession } from "../mcp/attached-session.js";
import type { JsSession } from "../mcp/js-session.js";

const USAGE = `usage: deskbook mcp                                    serve MCP on stdio with a kernel of its own
       deskbook mcp --server URL --token TOKEN --kernel ID
                                                    run the calls in a kernel open in JupyterLab
                                                    (TOKEN may come from JUPYTER_TOKEN instead)`;

interface McpArgs {
  attach?: { server: string; token: string; kernel: string };
}

export async function runMcp(args: string[]): Promise<number> {
  let parsed: McpArgs;
  try {
    parsed = parseArgs(args, process.env);
  } catch (error) {
    process.stderr.write(`deskbook mcp: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  quietStdout();
  let clientName = "mcp client";
  const home = deskbookHome();
  const session: JsSession = parsed.attach
    ? new AttachedSession({ ...parsed.attach, clientName: () => clientName, timeoutMs: () => loadConfig(home).mcp.attachTimeoutMs, probeTimeoutMs: () => loadConfig(home).mcp.attachProbeTimeoutMs })
    : new KernelSession({ clientName: () => clientName, cwd: process.cwd() });
  const server = createMcpServer({ session, maxImageBytes: () => loadConfig(home).mcp.maxImageBytes });
  server.oninitialized = () => {
    const info = server.getClientVersion();
    if (info?.name) clientName = info.name;
  };
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  const stop = () => void server.close();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await server.connect(new StdioServerTransport());
  // The stdio transport does not notice the client going away by itself.
  process.stdin.once("end", stop);
  await closed;
  await session.close();
  return 0;
}

/**
 * stdout carries the MCP messages, one JSON line each: console output of a library (the
 * Jupyter client library logs "Starting WebSocket: …" for each websocket it opens) goes to
 * stderr, where an MCP client keeps the server's log, instead of breaking a line of the protocol.
 */
function quietStdout(): void {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function parseArgs(args: string[], env: NodeJS.ProcessEnv): McpArgs {
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--help" || arg === "-h") continue;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!["--server", "--token", "--kernel"].includes(flag)) throw new Error(`unknown option ${JSON.stringify(arg)}`);
    const value = inline ?? args[++i];
    if (value === undefined || value === "") throw new Error(`${flag} needs a value`);
    values[flag.slice(2)] = value;
  }
  const token = values.token ?? env.JUPYTER_TOKEN;
  const given = ["server", "kernel"].filter((k) => values[k] !== undefined);
  if (given.length === 0 && values.token === undefined) return {};
  if (given.length < 2 || token === undefined) throw new Error("attach mode needs --server, --token (or JUPYTER_TOKEN) and --kernel together");
  try {
    new URL(values.server!);
  } catch {
    throw new Error(`--server must be a URL like http://127.0.0.1:8888/, not ${JSON.stringify(values.server)}`);
  }
  return { attach: { server: values.server!, token, kernel: values.kernel! } };
}
