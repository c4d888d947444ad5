// A second local user for tests that check what another user cannot do: created with useradd
// (CI runs as root), removed again by remove(). Null when this process cannot create users.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { randomBytes } from "node:crypto";

export interface SecondUser {
  name: string;
  uid: number;
  /** Runs a command as the user (runuser), with only PATH and the given variables. */
  run(command: string, args: string[], env?: Record<string, string>): SpawnSyncReturns<string>;
  remove(): void;
}

/** Why a second user cannot be made here, or null when it can. */
export function secondUserUnavailable(): string | null {
  if (process.getuid?.() !== 0) return "not running as root";
  const missing = ["useradd", "userdel", "runuser"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  return missing.length > 0 ? `${missing.join(", ")} missing` : null;
}

export function createSecondUser(): SecondUser {
  const name = `dbtest${randomBytes(3).toString("hex")}`;
  const made = spawnSync("useradd", ["--no-create-home", "--shell", "/bin/sh", name], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`useradd ${name} failed: ${made.stderr}`);
  const uid = Number(spawnSync("id", ["-u", name], { encoding: "utf8" }).stdout.trim());
  return {
    name,
    uid,
    run: (command, args, env = {}) =>
      spawnSync("runuser", ["-u", name, "--", "env", "-i", `PATH=${process.env.PATH ?? "/usr/bin:/bin"}`, ...Object.entries(env).map(([k, v]) => `${k}=${v}`), command, ...args], {
        encoding: "utf8",
        timeout: 20_000,
        cwd: "/",
      }),
    remove: () => void spawnSync("userdel", ["--force", name]),
  };
}
