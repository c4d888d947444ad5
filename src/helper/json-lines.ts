// JSON lines framing for the helper socket, shared by the client and the TypeScript helpers.
import { MAX_LINE_BYTES } from "./protocol.js";

export class LineTooLongError extends Error {
  override readonly name = "LineTooLongError";
  constructor(readonly maxBytes: number) {
    super(`a line is longer than ${maxBytes} bytes`);
  }
}

/**
 * Splits a byte stream into lines. Works on bytes, not strings, so a UTF-8 character cut in
 * two by a chunk boundary is decoded whole; chunks are joined only when a newline completes
 * them, so a multi-megabyte screenshot reply costs one copy.
 */
export class LineSplitter {
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(readonly maxLineBytes: number = MAX_LINE_BYTES) {}

  /** The complete lines in `chunk` (blank lines skipped). Throws LineTooLongError past the bound. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const line = this.#take(chunk.subarray(start, nl));
      if (line.trim() !== "") lines.push(line);
      start = nl + 1;
    }
    this.#keep(chunk.subarray(start));
    return lines;
  }

  /** Bytes held for a line not yet complete. */
  get pendingBytes(): number {
    return this.#size;
  }

  #take(tail: Buffer): string {
    this.#check(this.#size + tail.length);
    const whole = this.#chunks.length === 0 ? tail : Buffer.concat([...this.#chunks, tail]);
    this.#chunks = [];
    this.#size = 0;
    return whole.toString("utf8");
  }

  #keep(rest: Buffer): void {
    if (rest.length === 0) return;
    this.#check(this.#size + rest.length);
    // Copy: the caller's chunk may be a pooled buffer that gets reused.
    this.#chunks.push(Buffer.from(rest));
    this.#size += rest.length;
  }

  #check(size: number): void {
    if (size > this.maxLineBytes) {
      this.#chunks = [];
      this.#size = 0;
      throw new LineTooLongError(this.maxLineBytes);
    }
  }
}

/** One message as one line. JSON.stringify never emits a raw newline, so framing is safe. */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
