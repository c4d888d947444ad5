// Models read text, not terminal colours: escape sequences are dropped from everything sent.
// CSI (colours, cursor moves), OSC (titles, links) and lone two-byte escapes.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}
