import util from "node:util";
import type { ErrorContent } from "./protocol.js";

// Stack frames from Node's internals or Deskbook's own executor say nothing about the
// user's code; a traceback keeps the frames from cells and from the user's modules.
const HOST_FRAME = /\((node:|deskbook:)|at (node:|deskbook:)|\/dist\/src\/executor\/|\/src\/executor\//;

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
    .filter((line) => /^\s+at /.test(line) && !HOST_FRAME.test(line));
  return { ename, evalue, traceback: [`${ename}: ${evalue}`, ...frames] };
}

function isErrorLike(value: unknown): value is Error {
  return typeof value === "object" && value !== null && "message" in value && "stack" in value;
}
