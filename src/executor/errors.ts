import util from "node:util";
import type { ErrorContent } from "./ipc-messages.js";

// Stack frames from Node's internals or Deskbook's own code (executor, desk, helper client) say nothing about the
// user's code; a traceback keeps the frames from cells and from the user's modules.
const HOST_FRAME = /\((node:|deskbook:)|at (node:|deskbook:)|\/dist\/src\/|\/src\/(executor|desk|helper|kernel)\//;

// The line count of each compiled cell, by its script name: a frame past a cell's last line
// is the rewrite's own wrapper (the call of the cell's async function), not the user's code.
const cellLines = new Map<string, number>();

export function registerCell(filename: string, source: string): void {
  cellLines.set(filename, source.split("\n").length);
}

/** Turns anything a cell threw into Jupyter's error content, with the cell's own line numbers. */
export function toErrorContent(thrown: unknown): ErrorContent {
  if (!isErrorLike(thrown)) {
    const text = util.inspect(thrown, { colors: false, depth: 2 });
    return { ename: "Uncaught", evalue: text, traceback: [`Uncaught ${text}`] };
  }
  const ename = thrown.name || thrown.constructor?.name || "Error";
  const evalue = String(thrown.message ?? "");
  const frames = String(thrown.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line) && !HOST_FRAME.test(line) && !isWrapperFrame(line));
  return { ename, evalue, traceback: [`${ename}: ${evalue}`, ...frames] };
}

function isErrorLike(value: unknown): value is Error {
  return typeof value === "object" && value !== null && "message" in value && "stack" in value;
}

function isWrapperFrame(line: string): boolean {
  const match = /(cell-\d+):(\d+):\d+\)?$/.exec(line);
  if (!match) return false;
  const lines = cellLines.get(match[1]!);
  return lines !== undefined && Number(match[2]) > lines;
}
