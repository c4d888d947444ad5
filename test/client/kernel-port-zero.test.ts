// A connection file of port 0s: the kernel binds ports the OS (tcp) or the free paths (ipc) give
// it, and writes them back into the file, as ipykernel does, so a frontend can connect. A kernel
// that cannot write them back exits with its own code rather than serve where nobody can reach it.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "../../src/client/kernel-process.js";
import { KernelClient } from "../../src/client/kernel-client.js";
import { CONNECTION_FILE_UNWRITABLE_EXIT_CODE } from "../../src/jupyter/bound-ports-write.js";
import type { ConnectionInfo } from "../../src/jupyter/connection.js";
import { tempDir } from "../support/temp-dir.js";

const PORTS = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"] as const;
const running: { child: ChildProcess; exited: Promise<number | null> }[] = [];

afterEach(async () => {
  for (const { child, exited } of running.splice(0)) {
    child.kill("SIGTERM");
    await exited;
  }
});

function zeros(transport: "tcp" | "ipc", ip: string): Record<string, unknown> {
  return { transport, ip, shell_port: 0, iopub_port: 0, stdin_port: 0, control_port: 0, hb_port: 0, key: "s3cret-key", signature_scheme: "hmac-sha256", kernel_name: "deskbook", jupyter_session: "notebook.ipynb" };
}

function launch(dir: string, file: string, fd3?: number): { child: ChildProcess; exited: Promise<number | null>; log: () => string } {
  const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "ignore", "pipe"];
  if (fd3 !== undefined) stdio.push(fd3);
  const child = spawn(process.execPath, [CLI, "kernel", "-f", file], { stdio, env: { ...process.env, DESKBOOK_HOME: join(dir, "home") } });
  let log = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (log += text));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  running.push({ child, exited });
  return { child, exited, log: () => log };
}

/** The file once the kernel has written its ports into it (the kernel exiting first fails the test). */
async function boundFile(file: string, exited: Promise<number | null>, log: () => string): Promise<Record<string, unknown>> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    const fields = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    if (PORTS.every((port) => fields[port] !== 0)) return fields;
    if (gone) throw new Error(`the kernel exited without writing its ports: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runsACell(info: ConnectionInfo): Promise<void> {
  const client = await KernelClient.connect(info);
  try {
    const { reply } = await client.execute("6 * 7");
    expect(reply.content).toMatchObject({ status: "ok" });
    expect(client.iopubLog.some((msg) => msg.header.msg_type === "execute_result" && JSON.stringify(msg.content).includes("42"))).toBe(true);
  } finally {
    await client.close();
  }
}

describe("deskbook kernel on a connection file whose ports are 0", () => {
  it("over tcp writes the ports it bound into the file, keeps every other field, mode 0600, and serves on them", async () => {
    const dir = await tempDir("deskbook-port-zero-");
    const file = join(dir, "kernel.json");
    writeFileSync(file, JSON.stringify(zeros("tcp", "127.0.0.1")), { mode: 0o644 });
    const { exited, log } = launch(dir, file);
    const fields = await boundFile(file, exited, log);
    expect(fields).toMatchObject({ ...zeros("tcp", "127.0.0.1"), ...Object.fromEntries(PORTS.map((port) => [port, expect.any(Number)])) });
    const ports = PORTS.map((port) => fields[port] as number);
    expect(new Set(ports).size).toBe(5);
    for (const port of ports) expect(port).toBeGreaterThan(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await runsACell(fields as unknown as ConnectionInfo);
  });

  it("over ipc takes the lowest free numbered paths and writes them into the file", async () => {
    const dir = await tempDir("deskbook-port-zero-");
    const ip = join(dir, "kernel-ipc");
    // Path 1 is somebody else's: the kernel goes past it, as ipykernel does.
    writeFileSync(`${ip}-1`, "");
    const file = join(dir, "kernel.json");
    writeFileSync(file, JSON.stringify(zeros("ipc", ip)));
    const { exited, log } = launch(dir, file);
    const fields = await boundFile(file, exited, log);
    expect(PORTS.map((port) => fields[port] as number).sort()).toEqual([2, 3, 4, 5, 6]);
    expect(fields).toMatchObject({ transport: "ipc", ip, key: "s3cret-key", jupyter_session: "notebook.ipynb" });
    await runsACell(fields as unknown as ConnectionInfo);
  });

  it("exits with its own code, saying why, when the file cannot be rewritten", async () => {
    // The kernel reads the file through /proc/self/fd/3, a directory where nobody, root
    // included, can create the temporary file a rewrite needs.
    const dir = await tempDir("deskbook-port-zero-");
    const real = join(dir, "kernel.json");
    writeFileSync(real, JSON.stringify(zeros("tcp", "127.0.0.1")));
    const fd = openSync(real, "r");
    try {
      const file = "/proc/self/fd/3";
      const { exited, log } = launch(dir, file, fd);
      expect(await exited).toBe(CONNECTION_FILE_UNWRITABLE_EXIT_CODE);
      expect(log()).toContain(`deskbook kernel: connection_file_unwritable: cannot write the bound ports into the connection file ${file}`);
      expect(JSON.parse(readFileSync(real, "utf8"))).toEqual(zeros("tcp", "127.0.0.1"));
    } finally {
      closeSync(fd);
    }
  });
});
