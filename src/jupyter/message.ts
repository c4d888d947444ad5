import { randomUUID } from "node:crypto";

/** The version of the Jupyter messaging spec the kernel speaks (every header, kernel_info). */
export const JUPYTER_PROTOCOL_VERSION = "5.3";

export interface MessageHeader {
  msg_id: string;
  session: string;
  username: string;
  date: string;
  msg_type: string;
  version: string;
}

export interface JupyterMessage<C = Record<string, unknown>> {
  /** ZeroMQ routing frames before `<IDS|MSG>`; replies must carry them back. */
  identities: Buffer[];
  header: MessageHeader;
  parent_header: MessageHeader | Record<string, never>;
  metadata: Record<string, unknown>;
  content: C;
  buffers: Buffer[];
}

/** Channels that carry request/reply traffic (iopub and heartbeat are separate). */
export type Channel = "shell" | "control" | "stdin";

export function newHeader(msgType: string, session: string, username: string): MessageHeader {
  return {
    msg_id: randomUUID(),
    session,
    username,
    date: new Date().toISOString(),
    msg_type: msgType,
    version: JUPYTER_PROTOCOL_VERSION,
  };
}

export function replyTo<C = Record<string, unknown>>(
  parent: JupyterMessage<unknown>,
  msgType: string,
  content: C,
  session: string,
  username: string,
  metadata: Record<string, unknown> = {},
): JupyterMessage<C> {
  return {
    identities: [...parent.identities],
    header: newHeader(msgType, session, username),
    parent_header: parent.header,
    metadata,
    content,
    buffers: [],
  };
}
