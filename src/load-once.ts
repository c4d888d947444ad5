// Modules a process loads on first use (dbus-next, sharp: megabytes and start time that most
// processes never need). One import is shared by every caller; a failed one is forgotten, so the
// next call tries again: the failure may pass (too many open files, a package being reinstalled),
// and remembering it would break that feature for the life of a kernel that could recover.
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
