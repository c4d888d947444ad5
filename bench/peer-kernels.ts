/**
 * Other Jupyter kernels the kernel bench times beside Deskbook (`npm run bench -- --peers`):
 * where each is installed and how it is started on a connection file. scripts/setup-peers.sh
 * installs them into bench/peers/node_modules; one found on PATH is used otherwise.
 *
 * IJavascript is not among them: its zeromq 5 addon fetches libzmq's source from GitHub when
 * it installs, so it cannot be installed where only the package registries are reachable,
 * and a peer the bench could never run here would be code nobody has run.
 */
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

export type PeerKind = "deno";
export const PEER_KINDS: readonly PeerKind[] = ["deno"];

/** A peer kernel found on this machine: the executable and its arguments for a connection file. */
export interface PeerKernel {
  kind: PeerKind;
  /** As the bench's rows name it. */
  name: string;
  command(connectionFile: string): { file: string; args: string[] };
}

export const PEER_NAMES: Record<PeerKind, string> = { deno: "Deno's kernel" };

/** What to tell someone whose machine lacks the peer. */
export const PEER_MISSING: Record<PeerKind, string> = {
  deno: "not in bench/peers (scripts/setup-peers.sh installs it) nor `deno` on PATH",
};

const exe = (name: string): string => (process.platform === "win32" ? `${name}.exe` : name);

/**
 * The deno binary itself, not node_modules/.bin/deno: that is a Node script that spawns it,
 * which would add a Node start and a process to every figure the bench takes of Deno.
 */
function denoExecutable(repoRoot: string): string | undefined {
  const platform = `${process.platform}-${process.arch}${process.platform === "linux" ? "-glibc" : ""}`;
  const installed = join(repoRoot, "bench/peers/node_modules/@deno", platform, exe("deno"));
  return existsSync(installed) ? installed : onPath(exe("deno"));
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The peer if it is installed here, else undefined. */
export function findPeer(kind: PeerKind, repoRoot: string): PeerKernel | undefined {
  const file = denoExecutable(repoRoot);
  if (file === undefined) return undefined;
  // `deno jupyter --kernel --conn FILE` is what `deno jupyter --install` writes into its kernelspec.
  return { kind, name: PEER_NAMES[kind], command: (connectionFile) => ({ file, args: ["jupyter", "--kernel", "--conn", connectionFile] }) };
}
