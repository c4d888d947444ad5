import { Console } from "node:console";
import { Writable } from "node:stream";

export type StreamName = "stdout" | "stderr";

/**
 * A real `Console` (so table, group, count, time and friends all work) whose two
 * streams become Jupyter `stream` outputs. Writes are forwarded synchronously, which
 * keeps console output in order with display output of the same cell.
 */
export function createConsole(write: (name: StreamName, text: string) => void): Console {
  return new Console({
    stdout: forwarding("stdout", write),
    stderr: forwarding("stderr", write),
    colorMode: false,
    inspectOptions: { depth: 4 },
  });
}

function forwarding(name: StreamName, write: (name: StreamName, text: string) => void): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, done) {
      write(name, typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      done();
    },
  });
}
