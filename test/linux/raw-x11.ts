// A plain X client for tests that play an app or a window manager beside the helper: the core
// requests they send that the helper's own typings (helper/linux/x11.d.ts) leave out, declared
// once here, and the connection to $DISPLAY.
import x11 from "x11";

export interface RawX11 extends x11.Client {
  AllocID(): number;
  CreateWindow(id: number, parent: number, x: number, y: number, w: number, h: number, border: number, depth: number, cls: number, visual: number, values: Record<string, number>): void;
  MapWindow(id: number): void;
  DestroyWindow(id: number): void;
  ChangeProperty(mode: number, wid: number, name: number, type: number, units: number, data: number[]): void;
  InternAtom(onlyIfExists: boolean, name: string, cb: (err: Error | null, atom: number) => void): void;
  GrabButton(wid: number, ownerEvents: number, mask: number, pointerMode: number, keybMode: number, confineTo: number, cursor: number, button: number, modifiers: number): void;
  UngrabButton(wid: number, button: number, modifiers: number): void;
  AllowEvents(mode: number, time: number): void;
  QueryTree(wid: number, cb: (err: Error | null, tree: { root: number; parent: number; children: number[] }) => void): void;
}

/** `window class` for CreateWindow: a window that is drawn and takes input. */
export const INPUT_OUTPUT = 1;

/** Connects to $DISPLAY; the connection's later errors go to stderr under `label`. */
export function openRawX11(label: string): Promise<RawX11> {
  return new Promise((resolve, reject) => {
    const client = x11.createClient({ display: process.env.DISPLAY, shm: false }, (err) => (err ? reject(err) : resolve(client as RawX11)));
    client.on("error", (err: Error) => process.stderr.write(`${label}: ${err.message}\n`));
  });
}
