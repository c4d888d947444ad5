// `mkdir -p` that always ends. Node's own `recursive: true` (sync and async alike) retries a
// directory for as long as mkdir answers ENOENT, and some filesystems answer that for good:
// under /proc, DESKBOOK_HOME=/proc/self/x/home spun a process at full CPU forever. Every
// directory Deskbook creates on a path a user can name goes through here instead.
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** A directory that could not be made; `code` is the OS's (ENOENT, EACCES, ENOTDIR, EEXIST …). */
export class MakeDirsError extends Error {
  override readonly name = "MakeDirsError";
  constructor(
    readonly code: string,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** Creates `path` and its missing parents (each with `mode`); a directory already there is fine. */
export function makeDirsSync(path: string, mode?: number): void {
  for (const dir of missingDirs(resolve(path))) {
    try {
      mkdirSync(dir, mode === undefined ? undefined : { mode });
    } catch (error) {
      const code = errnoCode(error);
      // Another process made it meanwhile: only a directory will do.
      if (code === "EEXIST" && isDirectory(dir)) continue;
      throw new MakeDirsError(code, dir, `cannot create directory ${dir}: ${explain(code, dir)}`);
    }
  }
}

/** makeDirsSync for async code: a handful of syscalls, so one implementation serves both. */
export async function makeDirs(path: string, mode?: number): Promise<void> {
  makeDirsSync(path, mode);
}

/** The directories from the nearest existing ancestor of `target` down to `target`, outermost first. */
function missingDirs(target: string): string[] {
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    let found: boolean;
    try {
      found = statSync(at).isDirectory();
    } catch (error) {
      const code = errnoCode(error);
      // ENOTDIR: a file on the way up, which the walk reaches and names.
      if (code !== "ENOENT" && code !== "ENOTDIR") throw new MakeDirsError(code, at, `cannot create directory ${target}: ${at}: ${code}`);
      missing.unshift(at);
      // Only a filesystem root has itself as parent, and a root always exists.
      if (dirname(at) === at) throw new MakeDirsError(code, at, `cannot create directory ${target}: ${at} does not exist`);
      continue;
    }
    if (!found) throw new MakeDirsError("ENOTDIR", at, `cannot create directory ${target}: ${at} exists and is not a directory`);
    return missing;
  }
}

function explain(code: string, dir: string): string {
  // The parent exists (missingDirs saw it), so ENOENT means the filesystem takes no new directories.
  if (code === "ENOENT") return `ENOENT, although ${dirname(dir)} exists: that filesystem (such as /proc or /sys) takes no new directories`;
  if (code === "EACCES" || code === "EPERM") return `${code} (no permission to write in ${dirname(dir)})`;
  return code;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function errnoCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : "EIO";
}
