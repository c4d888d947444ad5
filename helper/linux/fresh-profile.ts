// Fresh app profiles (`launch` with `fresh: true`): the app gets its own XDG config, data,
// cache and state directories under $DESKBOOK_HOME/profiles/, so it meets none of what earlier
// runs left (a "restore the previous session?" dialog, a saved mode), and writes nothing to the
// user's settings. A profile is removed when its app exits; one whose app died while no helper
// watched is removed at the next helper start.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { isAlive } from "../../src/process-signals.js";
import { makeDirsSync } from "../../src/make-dirs.js";

const PARTS = { XDG_CONFIG_HOME: "config", XDG_DATA_HOME: "data", XDG_CACHE_HOME: "cache", XDG_STATE_HOME: "state" } as const;

export interface FreshProfile {
  dir: string;
  /** What the app's environment gets on top of the helper's. */
  env: NodeJS.ProcessEnv;
  /** Records the app's pid, so a later helper can tell a stale profile. */
  owner(pid: number): void;
  remove(): void;
}

export function profilesDir(home: string): string {
  return join(home, "profiles");
}

export function createFreshProfile(home: string, appName: string): FreshProfile {
  const safe = appName.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").slice(0, 40) || "app";
  const dir = join(profilesDir(home), `${safe}-${randomBytes(4).toString("hex")}`);
  const env: NodeJS.ProcessEnv = {
    // GSettings would otherwise go through the session's shared dconf service to the user's settings.
    GSETTINGS_BACKEND: "memory",
  };
  for (const [name, part] of Object.entries(PARTS)) {
    const path = join(dir, part);
    makeDirsSync(path, 0o700);
    env[name] = path;
  }
  return {
    dir,
    env,
    owner: (pid) => writeFileSync(join(dir, "pid"), `${pid}\n`, { mode: 0o600 }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Removes profiles whose app is gone (the helper that made them was stopped first). */
export function removeStaleProfiles(home: string, alive: (pid: number) => boolean = isAlive): void {
  let entries: string[];
  try {
    entries = readdirSync(profilesDir(home));
  } catch {
    return; // none yet
  }
  for (const entry of entries) {
    const dir = join(profilesDir(home), entry);
    const pid = Number.parseInt(readText(join(dir, "pid")), 10);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

const WATCH_MS = 1000;

/** The helper's fresh profiles, by the pid of the app using each. */
export class FreshProfiles {
  readonly #byPid = new Map<number, FreshProfile>();

  constructor(private readonly home: string) {}

  create(appName: string): FreshProfile {
    return createFreshProfile(this.home, appName);
  }

  /** The app runs on `profile` now; the profile goes when the app does. */
  adopt(pid: number, profile: FreshProfile): void {
    profile.owner(pid);
    this.#byPid.set(pid, profile);
    const timer = setInterval(() => {
      if (isAlive(pid)) return;
      clearInterval(timer);
      this.#byPid.delete(pid);
      profile.remove();
    }, WATCH_MS);
    timer.unref();
  }

  isFresh(pid: number): boolean {
    return this.#byPid.has(pid);
  }
}
