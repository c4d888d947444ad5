// dbus-next's own marshaller and unmarshaller, the reference the helper's hand decoders are
// checked against: a message built by the library must decode to what the library decodes.
import { createRequire } from "node:module";
import dbus from "dbus-next";

const require = createRequire(import.meta.url);
const { marshallMessage, messageToJsFmt } = require("dbus-next/lib/marshall-compat") as {
  marshallMessage: (message: dbus.Message) => [Buffer, unknown[]];
  messageToJsFmt: (message: { signature?: string; body?: unknown[] }) => { body: unknown[] };
};
const { unmarshall } = require("dbus-next/lib/message") as { unmarshall: (buffer: Buffer) => { signature?: string; body?: unknown[] } };
const marshall = require("dbus-next/lib/marshall") as (signature: string, values: unknown[], offset?: number) => Buffer;

/** Any message, as the library writes it. */
export function libraryMessage(message: dbus.Message): Buffer {
  return marshallMessage(message)[0];
}

/**
 * A little-endian method return with header fields given as [code, type, value] (fields the
 * library would never write included), and a body of raw bytes.
 */
export function messageWithFields(fields: Array<[number, string, unknown]>, body: Buffer, serial = 9): Buffer {
  const start = Buffer.alloc(12);
  start.write("l", 0, "latin1");
  start[1] = 2; // method return
  start[3] = 1;
  start.writeUInt32LE(body.length, 4);
  start.writeUInt32LE(serial, 8);
  const encoded = marshall("a(yv)", [fields.map(([code, type, value]) => [code, [type, value]])], 12);
  const headerLength = 12 + encoded.length;
  return Buffer.concat([start, encoded, Buffer.alloc(((headerLength + 7) & ~7) - headerLength), body]);
}

/** A method return carrying `body`, as the library writes it (little-endian). */
export function libraryReply(signature: string, body: unknown[], serial = 9, replySerial = 3): Buffer {
  const message = new dbus.Message({ type: dbus.MessageType.METHOD_RETURN, replySerial, signature, body, destination: ":1.5" } as unknown as dbus.MessageLike);
  message.serial = serial;
  return libraryMessage(message);
}

/** The body's bytes of a whole message (they start at the header's end, 8-aligned). */
export function bodyOf(message: Buffer): Buffer {
  const fields = message.readUInt32LE(12);
  return message.subarray(16 + ((fields + 7) & ~7));
}

/** What the library decodes the message's body to. */
export function libraryValues(message: Buffer): unknown[] {
  // The library cannot unmarshall a message without a body.
  return message.readUInt32LE(4) === 0 ? [] : messageToJsFmt(unmarshall(message)).body;
}
