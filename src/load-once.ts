// Modules a process loads on first use (dbus-next, sharp: megabytes and start time that most
// processes never need). A failed load is not remembered, so the next call tries again: the
// failure may pass (too many open files, a package being reinstalled), and remembering it would
// break that feature for the life of a kernel that could recover.
//
// They are loaded with require, not import(): Node keeps an ES module whose evaluation threw in
// its module map, and every later import() of it rejects with that same error, while require
// drops a module whose evaluation threw and evaluates it afresh next time. Both modules loaded
// here are CommonJS. require also keeps the module that loaded, so every caller shares it.
import { createRequire } from "node:module";

const requireModule = createRequire(import.meta.url);

/**
 * A loader for the CommonJS module `name` (a package name or an absolute path): the first call
 * that succeeds loads it, later calls get the same module, and a call after a failure tries again.
 * The caller names the module's type, `T`.
 */
export function loadOnce<T>(name: string): () => Promise<T> {
  let loaded: T | undefined;
  return async () => {
    loaded ??= requireModule(name) as T;
    return loaded;
  };
}
