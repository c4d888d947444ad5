import { documented } from "../doc.js";

export type InputFunction = ((prompt?: string) => Promise<string>) & { password(prompt?: string): Promise<string> };

/** What `input` needs from the session: whether the frontend accepts input, and a way to ask. */
export interface InputChannel {
  allowStdin(): boolean;
  request(prompt: string, password: boolean): Promise<string>;
}

export class StdinNotAllowedError extends Error {
  constructor() {
    super("input() needs a frontend that accepts input, and this cell was sent with allow_stdin: false");
    this.name = "StdinNotAllowedError";
  }
}

/** The frontend accepts input, but its stdin socket never connected, so nobody could be asked. */
export class StdinNotConnectedError extends Error {
  constructor(detail: string) {
    super(`input() could not ask the frontend: ${detail}`);
    this.name = "StdinNotConnectedError";
  }
}

/** `await input("prompt")` and `await input.password("prompt")` for cells. */
export function createInput(channel: InputChannel): InputFunction {
  const ask = (prompt: unknown, password: boolean): Promise<string> => {
    if (!channel.allowStdin()) return Promise.reject(new StdinNotAllowedError());
    return channel.request(prompt === undefined ? "" : String(prompt), password);
  };
  const input = (prompt?: string) => ask(prompt, false);
  const password = documented((prompt?: string) => ask(prompt, true), {
    signature: "await input.password(prompt?) → string",
    summary: "Asks the user for a secret through the frontend; the typed text is not echoed.",
  });
  return documented(Object.assign(input, { password }), {
    signature: "await input(prompt?) → string",
    summary: "Asks the user for a line of text through the frontend (Jupyter's stdin channel).",
    details: "Fails with `StdinNotAllowedError` when the frontend does not accept input (for example `nbconvert --execute`), and with `StdinNotConnectedError` when it said it does but its stdin socket never connected.",
  });
}
