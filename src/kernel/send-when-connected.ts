/** How long an input_request waits for its frontend's stdin socket to connect. */
export const STDIN_WAIT_MS = 10_000;
const RETRY_MS = 20;

/**
 * Sends on the stdin ROUTER, again every 20 ms while the frontend is not connected there yet.
 * A frontend's sockets connect each on its own reconnect timer, so under load a cell's first
 * `input()` can come before its stdin connection has finished the handshake; without a known
 * peer a ROUTER drops the message, and the cell waits for an answer forever. The socket is
 * mandatory (src/jupyter/channels.ts), so that send fails with EHOSTUNREACH instead.
 */
export async function sendWhenConnected(send: () => Promise<void>, stillWanted: () => boolean, waitMs = STDIN_WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    // A cell that ended meanwhile (interrupt, time limit) must not prompt the frontend later.
    if (!stillWanted()) return;
    try {
      await send();
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EHOSTUNREACH" || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
