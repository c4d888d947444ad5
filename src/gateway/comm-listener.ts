// The launcher's side of Enterprise Gateway's "communication port": EG connects, sends one JSON
// request and closes. {"signum": 0} is EG's liveness poll (a refused connection means the kernel
// is gone, so the port stays open as long as the kernel runs); {"signum": N} signals the kernel
// process, whose SIGINT and SIGTERM handlers interrupt and shut down; {"shutdown": 1} says EG is
// done with this listener. Only the signals EG sends are honoured: the port may be reachable by
// anyone on the network, and a SIGSTOP from them would freeze the kernel.
import type { Server, Socket } from "node:net";

export interface CommRequest {
  signum?: number;
  shutdown?: boolean | number;
}

/** What EG sends: SIGINT (interrupt), SIGKILL and SIGTERM (shutdown); 0 is the liveness poll. */
export const GATEWAY_SIGNALS: ReadonlySet<number> = new Set([2, 9, 15]);

export interface CommListenerOptions {
  server: Server;
  /** Sends a signal to the kernel (the launcher runs it in its own process). */
  signal: (signum: number) => void;
  log: (line: string) => void;
}

/** Serves EG's requests on an already listening server until a shutdown request closes it. */
export function serveCommRequests(options: CommListenerOptions): void {
  options.server.on("connection", (socket) => readRequest(socket, (text) => handle(text, options)));
}

function readRequest(socket: Socket, onRequest: (text: string) => void): void {
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    text += chunk;
    // A request is a few dozen bytes; anything larger is not EG's.
    if (text.length > 4096) socket.destroy();
  });
  socket.on("end", () => {
    socket.end();
    onRequest(text);
  });
  socket.on("error", () => undefined);
}

function handle(text: string, options: CommListenerOptions): void {
  const request = parseRequest(text);
  if (request === null) {
    options.log(`gateway comm port: ignored a request that is not EG's (${JSON.stringify(text.slice(0, 80))})`);
    return;
  }
  if (request.signum !== undefined && request.signum !== 0) {
    if (GATEWAY_SIGNALS.has(request.signum)) {
      options.log(`gateway comm port: signal ${request.signum}`);
      options.signal(request.signum);
    } else {
      options.log(`gateway comm port: refused signal ${request.signum} (only ${[...GATEWAY_SIGNALS].join(", ")} and the 0 poll are EG's); the kernel goes on`);
    }
  }
  if (request.shutdown) {
    options.log("gateway comm port: shutdown");
    options.server.close();
  }
}

/** The request, or null for anything but a JSON object with a whole signum and/or a shutdown flag. */
export function parseRequest(text: string): CommRequest | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { signum, shutdown } = value as Record<string, unknown>;
  if (signum !== undefined && !(Number.isInteger(signum) && (signum as number) >= 0 && (signum as number) < 65)) return null;
  if (shutdown !== undefined && typeof shutdown !== "boolean" && typeof shutdown !== "number") return null;
  if (signum === undefined && shutdown === undefined) return null;
  return { ...(signum !== undefined && { signum: signum as number }), ...(shutdown !== undefined && { shutdown: shutdown as boolean | number }) };
}
