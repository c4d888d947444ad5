/**
 * The kernel process starts without `NODE_EXTRA_CA_CERTS`; its executor gets it back.
 *
 * When that variable is set, Node 20 parses its whole CA store (its ~140 bundled roots and
 * every certificate in the file) as the process starts, before any JavaScript runs: ~30-80 ms
 * of CPU here, in each process (issue 12, docs/design.md "Where a kernel's start goes"). The
 * kernel makes no TLS connection (it speaks ZeroMQ, Unix sockets, X11 and plain HTTP to
 * 127.0.0.1; test/kernel/extra-ca-handoff.test.ts checks its modules), so it does not need
 * the store; cells do (a `fetch` through a TLS-intercepting proxy), and so do the processes
 * cells start. So a launcher moves the value to `DESKBOOK_NODE_EXTRA_CA_CERTS` before it
 * starts node, and the kernel moves it back into its own environment first thing, which every
 * process it starts inherits (the executor, which parses the file at its own start as
 * before). Only a non-empty value is moved: Node treats an empty one as unset.
 */

export const EXTRA_CA_VAR = "NODE_EXTRA_CA_CERTS";
export const HANDED_OFF_VAR = "DESKBOOK_NODE_EXTRA_CA_CERTS";

/**
 * What a kernelspec's argv starts with: POSIX sh moves the variable and `exec`s node, so the
 * kernel keeps the process id Jupyter started (its interrupts and kills reach the kernel).
 * No braces in the script: Jupyter substitutes `{name}` in every argv element.
 */
export const HANDOFF_SHELL_ARGV: readonly string[] = [
  "/bin/sh",
  "-c",
  `if [ -n "$${EXTRA_CA_VAR}" ]; then ${HANDED_OFF_VAR}=$${EXTRA_CA_VAR}; export ${HANDED_OFF_VAR}; unset ${EXTRA_CA_VAR}; fi; exec "$@"`,
  "deskbook-kernel",
];

/** The environment a launcher starts the kernel with: `env` with the variable moved aside. */
export function kernelLaunchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const value = env[EXTRA_CA_VAR];
  if (!value) return env;
  const moved: NodeJS.ProcessEnv = { ...env, [HANDED_OFF_VAR]: value };
  delete moved[EXTRA_CA_VAR];
  return moved;
}

/** Run by the CLI before anything else: puts the variable back for every process started from here on. */
export function restoreExtraCaCerts(env: NodeJS.ProcessEnv = process.env): void {
  const value = env[HANDED_OFF_VAR];
  if (value === undefined) return;
  delete env[HANDED_OFF_VAR];
  if (value) env[EXTRA_CA_VAR] = value;
}
