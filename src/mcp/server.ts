// `deskbook mcp`: two tools, js and js_reset, over one Deskbook session. Each js call is one
// execute_request; its outputs become MCP content (result-content.ts). Long calls send
// progress notifications so clients do not time out; a cancelled call interrupts the cell.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DESKBOOK_VERSION } from "../version.js";
import type { JsSession, RunResult } from "./js-session.js";
import { failureResult, toToolResult, type OutputMessage, type ToolResult } from "./result-content.js";
import { invalid, JS_DESCRIPTION, JS_INPUT_SCHEMA, jsArguments, RESET_DESCRIPTION, RESET_INPUT_SCHEMA, resetArguments } from "./tools.js";
import { UntrustedWrapper } from "./untrusted.js";

export interface McpServerOptions {
  session: JsSession;
  /** The image budget, read at each call so config.json edits apply at once. */
  maxImageBytes: () => number;
  /** How often a running call reports progress. Default 1 s. */
  progressEveryMs?: number;
}

export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: "deskbook", version: DESKBOOK_VERSION },
    { capabilities: { tools: {} }, instructions: "Deskbook drives desktop apps from JavaScript: see the js tool." },
  );
  const wrapper = new UntrustedWrapper();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "js", title: "Run JavaScript on the desktop", description: JS_DESCRIPTION, inputSchema: JS_INPUT_SCHEMA },
      { name: "js_reset", title: "Reset the JavaScript session", description: RESET_DESCRIPTION, inputSchema: RESET_INPUT_SCHEMA },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (name === "js_reset") {
      resetArguments(args);
      return asCallResult({ content: [{ type: "text", text: await options.session.reset() }], isError: false });
    }
    if (name !== "js") throw invalid(`unknown tool ${JSON.stringify(name)}: Deskbook has js and js_reset`);
    const call = jsArguments(args);
    const progress = progressReporter(request.params._meta?.progressToken, extra.sendNotification, options.progressEveryMs ?? 1000);
    try {
      const run = await options.session.run(call.code, {
        ...(call.title !== undefined && { title: call.title }),
        ...(call.timeoutMs !== undefined && { timeoutMs: call.timeoutMs }),
        onOutput: progress.output,
        signal: extra.signal,
      });
      return asCallResult(withNotice(await toToolResult(run.outputs, { maxImageBytes: options.maxImageBytes(), wrapper }), run));
    } catch (error) {
      return asCallResult(failureResult(`Deskbook could not run the call: ${error instanceof Error ? error.message : String(error)}`));
    } finally {
      progress.stop();
    }
  });
  return server;
}

/** A session's notice (attach mode: the kernel was restarted) leads; a call not run or cut off is an error. */
function withNotice(result: ToolResult, run: RunResult): ToolResult {
  if (run.notice === undefined) return result;
  const outputs = run.outputs.length > 0 ? result.content : [];
  return { content: [{ type: "text", text: run.notice }, ...outputs], isError: result.isError || run.status !== "ok" };
}

function asCallResult(result: ToolResult): CallToolResult {
  return { content: result.content, isError: result.isError };
}

type Notify = (notification: { method: "notifications/progress"; params: { progressToken: string | number; progress: number; message?: string } }) => Promise<void>;

/** Progress on a timer and at each output, only when the client asked for it with a token. */
function progressReporter(token: string | number | undefined, send: unknown, everyMs: number): { output: (m: OutputMessage) => void; stop: () => void } {
  if (token === undefined) return { output: () => undefined, stop: () => undefined };
  const notify = send as Notify;
  const started = Date.now();
  let outputs = 0;
  let count = 0;
  const report = () => {
    count += 1;
    const seconds = Math.round((Date.now() - started) / 1000);
    notify({ method: "notifications/progress", params: { progressToken: token, progress: count, message: `running for ${seconds} s, ${outputs} output${outputs === 1 ? "" : "s"} so far` } }).catch(() => undefined);
  };
  const timer = setInterval(report, everyMs);
  return {
    output: () => {
      outputs += 1;
      report();
    },
    stop: () => clearInterval(timer),
  };
}
