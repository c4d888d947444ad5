/**
 * The executor's NODE_EXTRA_CA_CERTS without the certificates Node bundles anyway.
 *
 * Node 20 parses every certificate of that file as the executor starts (~30-40 ms of CPU for
 * a system bundle of ~140, most of which are Node's own roots). Its store is Node's bundled
 * roots plus the file's certificates, so a copy of the file without the bundled ones gives the
 * same store. The kernel makes the copy once per content of the file and Node version, once
 * the executor has started (that first executor gets the file itself), in the user's cache
 * directory (`$XDG_CACHE_HOME/deskbook/ca-copies`, `~/Library/Caches/deskbook/…` on macOS);
 * an executor started with the copy gets the user's path in HANDED_OFF_VAR and puts it back
 * into its environment first thing, so cells and what they start see what the user set.
 * No copy is used when anything is unusual: `--use-openssl-ca` (the store then has no bundled
 * roots), a file with other PEM blocks than certificates, a file that cannot be read.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { EXTRA_CA_VAR, HANDED_OFF_VAR } from "./extra-ca-handoff.js";

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** The environment to fork the executor with, and the copy to make for the next one, if any. */
export interface ExecutorCaEnv {
  env: NodeJS.ProcessEnv;
  makeCopy?: () => void;
}

export function executorCaEnv(env: NodeJS.ProcessEnv, nodeFlags: readonly string[]): ExecutorCaEnv {
  const file = env[EXTRA_CA_VAR];
  if (!file || [...nodeFlags, ...(env.NODE_OPTIONS ?? "").split(/\s+/)].includes("--use-openssl-ca")) return { env };
  let text: string;
  try {
    text = readFileSync(file, "latin1");
  } catch {
    return { env }; // Node says why in the executor's log, as it would anywhere
  }
  if ((text.match(/-----BEGIN /g) ?? []).length !== (text.match(CERTIFICATE) ?? []).length) return { env };
  const key = createHash("sha256").update(`${process.version} ${process.versions.openssl}\n`).update(text).digest("hex").slice(0, 32);
  const copy = join(cacheDir(env), "deskbook", "ca-copies", `${key}.pem`);
  if (existsSync(copy)) return { env: { ...env, [EXTRA_CA_VAR]: copy, [HANDED_OFF_VAR]: file } };
  return { env, makeCopy: () => writeCopy(text, copy) };
}

/** Writes the file's certificates that are not among Node's bundled roots; a failure only means no copy. */
function writeCopy(text: string, copy: string): void {
  void import("node:tls").then(({ rootCertificates }) => {
    const bundled = new Set(rootCertificates.map(body));
    const extra = (text.match(CERTIFICATE) ?? []).filter((pem) => !bundled.has(body(pem)));
    try {
      // Level by level: Node's recursive mkdir loops for ever where mkdir keeps failing with ENOENT (under /proc).
      for (const dir of [dirname(dirname(dirname(copy))), dirname(dirname(copy)), dirname(copy)]) {
        if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
      }
      const partial = `${copy}.${process.pid}.tmp`;
      writeFileSync(partial, extra.join("\n") + "\n", { mode: 0o600 });
      renameSync(partial, copy);
    } catch {
      // a read-only cache directory: every executor gets the file itself, as without the copy
    }
  });
}

function cacheDir(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  if (process.platform === "darwin") return join(home, "Library", "Caches");
  return env.XDG_CACHE_HOME || join(home, ".cache");
}

/** A certificate's base64, without its armour and line breaks. */
function body(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
}
