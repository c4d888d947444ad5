/** The connection file of `deskbook kernel -f FILE` (or `--connection-file FILE`), if given. */
export function connectionFileArg(args: readonly string[]): string | undefined {
  const flag = args.findIndex((a) => a === "-f" || a === "--connection-file");
  return flag >= 0 ? args[flag + 1] : undefined;
}
