// A port of the connection file was already taken when the kernel came to bind it. A launcher
// that picks free ports and writes them into the file can lose one to another process before
// the kernel binds; such a kernel exits with its own code so the launcher can tell this from
// any other failed start and start it again on new ports, as jupyter_client does for a kernel
// that died before it was first alive.

/** The exit code of a kernel that could not bind because a port was in use. */
export const PORT_IN_USE_EXIT_CODE = 3;

export class PortInUseError extends Error {
  constructor(
    /** The socket that could not bind: shell, control, stdin, iopub or heartbeat. */
    readonly channel: string,
    readonly address: string,
  ) {
    super(`cannot bind the ${channel} socket to ${address}: the port is in use by another process`);
    this.name = "PortInUseError";
  }
}
