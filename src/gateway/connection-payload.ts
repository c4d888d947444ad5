// The message a remote kernel's launcher sends Enterprise Gateway once its ports are bound
// (EG's ResponseManager reads it, version 1): the connection info as JSON, AES-128-ECB with a
// fresh key, and that key RSA-encrypted (PKCS#1 v1.5) with the public key EG passed at launch.
import { constants, createCipheriv, createPublicKey, publicEncrypt, randomBytes } from "node:crypto";
import type { ConnectionInfo } from "../jupyter/connection.js";

export const LAUNCHER_VERSION = 1;

/** What EG wants back: the ports and key, plus where to send signals and whose kernel it is. */
export interface GatewayConnectionInfo extends ConnectionInfo {
  kernel_id: string;
  /** The port this launcher listens on for EG's signal and shutdown requests. */
  comm_port: number;
  pid: number;
  pgid?: number;
}

export class PublicKeyError extends Error {
  override readonly name = "PublicKeyError";
}

/** Base64 of `{"version": 1, "key": …, "conn_info": …}`, as EG's launchers send it. */
export function encryptConnectionInfo(info: GatewayConnectionInfo, publicKey: string): string {
  const aesKey = randomBytes(16);
  const cipher = createCipheriv("aes-128-ecb", aesKey, null);
  const connInfo = Buffer.concat([cipher.update(JSON.stringify(info), "utf8"), cipher.final()]).toString("base64");
  const key = publicEncrypt({ key: gatewayPublicKey(publicKey), padding: constants.RSA_PKCS1_PADDING }, aesKey).toString("base64");
  return Buffer.from(JSON.stringify({ version: LAUNCHER_VERSION, key, conn_info: connInfo }), "utf8").toString("base64");
}

/** EG passes its RSA public key as the base64 body of a PEM "PUBLIC KEY" (SubjectPublicKeyInfo), header and newlines stripped. */
function gatewayPublicKey(publicKey: string) {
  try {
    return createPublicKey({ key: Buffer.from(publicKey.replace(/\s+/g, ""), "base64"), format: "der", type: "spki" });
  } catch (error) {
    throw new PublicKeyError(`the gateway's public key is not a base64 RSA public key (${error instanceof Error ? error.message : String(error)})`);
  }
}
