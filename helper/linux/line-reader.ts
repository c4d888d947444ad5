// Request lines from a byte stream, surviving a line over the limit: that line is reported
// once, its bytes are dropped up to the next newline, and reading goes on from there. A JSON
// line never holds a raw newline, so the next one is a line start that can be trusted.
import { LineSplitter, LineTooLongError } from "../../src/helper/json-lines.js";
import { MAX_LINE_BYTES } from "../../src/helper/protocol.js";

/** A complete line, or the news that one was over the limit and has been skipped. */
export type LineItem = { line: string } | { tooLong: true };

export class LineReader {
  readonly #splitter: LineSplitter;
  /** Inside an over-long line: drop bytes until its newline. */
  #skipping = false;

  constructor(readonly maxLineBytes: number = MAX_LINE_BYTES) {
    this.#splitter = new LineSplitter(maxLineBytes);
  }

  push(chunk: Buffer): LineItem[] {
    const items: LineItem[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      this.#feed(chunk.subarray(start, end), nl !== -1, items);
      start = end;
    }
    return items;
  }

  /** One piece: up to and including a newline (`complete`), or the chunk's unfinished tail. */
  #feed(piece: Buffer, complete: boolean, items: LineItem[]): void {
    if (this.#skipping) {
      if (complete) this.#skipping = false;
      return;
    }
    try {
      for (const line of this.#splitter.push(piece)) items.push({ line });
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      items.push({ tooLong: true });
      // The splitter has dropped what it held; the rest of this line is still to come.
      this.#skipping = !complete;
    }
  }
}
