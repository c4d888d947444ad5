// A deadline for one D-Bus exchange: dbus-next's bus.call has none of its own, and a bus or
// service that never answers must not hang a desktop start or a doctor check.

/** `call`, or a rejection with `message` once `timeoutMs` have passed. */
export async function within<T>(call: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
