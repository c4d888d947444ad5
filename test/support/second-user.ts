// A second local user for tests that check what another user cannot do: created with useradd
// (CI runs as root), removed again by remove(). Null when this process cannot create users.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from "node:child_process";
import { randomBytes } from "node:crypto";

export interface SecondUser {
  name: string;
  uid: number;
  gid: number;
  /** Runs a command as the user (runuser), with only PATH and the given variables. */
  run(command: string, args: string[], env?: Record<string, string>): SpawnSyncReturns<string>;
  /**
   * Starts a long-running process as the user. Spawned with the user's uid and gid directly,
   * not through runuser: runuser stays behind as a root parent, so its pid is not the user's,
   * and killing it would orphan the command.
   */
  start(command: string, args: string[]): ChildProcess;
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
  const gid = Number(spawnSync("id", ["-g", name], { encoding: "utf8" }).stdout.trim());
  return {
    name,
    uid,
    gid,
    run: (command, args, env = {}) =>
      spawnSync("runuser", ["-u", name, "--", "env", "-i", `PATH=${process.env.PATH ?? "/usr/bin:/bin"}`, ...Object.entries(env).map(([k, v]) => `${k}=${v}`), command, ...args], {
        encoding: "utf8",
        timeout: 20_000,
        cwd: "/",
      }),
    start: (command, args) =>
      spawn(command, args, { uid, gid, cwd: "/", stdio: "ignore", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } }),
    remove: () => void spawnSync("userdel", ["--force", name]),
  };
}
