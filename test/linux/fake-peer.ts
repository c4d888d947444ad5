// A scripted D-Bus peer on a Unix socket, standing in for an app's own AT-SPI socket: it
// authenticates a client as at-spi2-atk does (EXTERNAL), then hands every method call to
// `answer`, which returns the bytes to send back (a reply, garbage, or nothing).
import { createServer, type Server, type Socket } from "node:net";
import { MessageReader, type RawMessage } from "../../helper/linux/dbus-message-reader.js";

export interface FakePeer {
  path: string;
  /** Method calls received, in order. */
  calls: RawMessage[];
  close(): Promise<void>;
}

export type Answer = (call: RawMessage) => Buffer | undefined;

export async function startFakePeer(path: string, answer: Answer, auth = "OK 0123456789abcdef0123456789abcdef"): Promise<FakePeer> {
  const calls: RawMessage[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let text = "";
    let reader: MessageReader | undefined;
    socket.on("data", (chunk: Buffer) => {
      if (reader) return serve(reader.push(chunk));
      text += chunk.toString("latin1");
      if (!text.includes("BEGIN\r\n")) {
        if (text.includes("AUTH EXTERNAL") && text.endsWith("\r\n")) socket.write(`${auth}\r\n`);
        return;
      }
      const rest = Buffer.from(text.slice(text.indexOf("BEGIN\r\n") + 7), "latin1");
      reader = new MessageReader();
      serve(reader.push(rest));
    });
    const serve = (messages: RawMessage[]): void => {
      for (const call of messages) {
        calls.push(call);
        const reply = answer(call);
        if (reply) socket.write(reply);
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    path,
    calls,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
