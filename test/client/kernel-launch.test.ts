// The launcher's answer to the port race: startKernel picks free ports, and another process can
// take one before the kernel binds it. Here the test is that other process: right after the
// launcher picked the ports it listens on the shell port itself, so the kernel really finds it
// taken. The launcher must see the kernel exit for that reason, say so, and start it again on new
// ports (as jupyter_client does before a kernel is first alive), and stop after five launches.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLI, startKernel } from "../../src/client/kernel-process.js";
import { writeConnectionFile } from "../../src/client/connection-file.js";
import { PORT_IN_USE_EXIT_CODE } from "../../src/jupyter/port-in-use.js";
import { tempDir } from "../support/temp-dir.js";

const thief = vi.hoisted(() => ({ launches: 0, servers: [] as Server[], ports: [] as number[] }));

vi.mock("../../src/client/connection-file.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/client/connection-file.js")>();
  return {
    ...real,
    // The real file on real free ports; then, for the next `thief.launches` launches, the shell port taken.
    writeConnectionFile: async (...args: Parameters<typeof real.writeConnectionFile>) => {
      const written = await real.writeConnectionFile(...args);
      if (thief.launches > 0) {
        thief.launches--;
        thief.ports.push(written.info.shell_port);
        thief.servers.push(await listenOn(written.info.shell_port));
      }
      return written;
    },
  };
});

/** Listens on `port`, ending every connection at once (the launcher's client may connect to it). */
async function listenOn(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return server;
}

afterEach(async () => {
  thief.launches = 0;
  thief.ports.length = 0;
  await Promise.all(thief.servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("startKernel and a port taken before the kernel binds it", () => {
  it("starts the kernel again on new ports, saying why, and the kernel works", async () => {
    thief.launches = 1;
    const lines: string[] = [];
    const kernel = await startKernel({ privateHome: true, log: (line) => lines.push(line) });
    try {
      const [taken] = thief.ports;
      expect(lines).toEqual([
        `deskbook kernel: cannot bind the shell socket to tcp://127.0.0.1:${taken}: the port is in use by another process; starting the kernel again on new ports (launch 2 of at most 5)`,
      ]);
      expect(kernel.info.shell_port).not.toBe(taken);
      const { reply } = await kernel.client.execute("6 * 7");
      expect(reply.content).toMatchObject({ status: "ok" });
    } finally {
      await kernel.stop();
    }
  });

  it("gives up after five launches, with the kernel's own reason", async () => {
    thief.launches = 5;
    const lines: string[] = [];
    await expect(startKernel({ privateHome: true, log: (line) => lines.push(line) })).rejects.toThrow(
      /the kernel exited before it was ready; kernel exit: 3;[\s\S]*the port is in use by another process/,
    );
    expect(lines).toHaveLength(4);
    expect(thief.ports).toHaveLength(5);
  });

  it("does not start again a kernel that failed for another reason, and does not wait out the ready timeout", async () => {
    const lines: string[] = [];
    const started = Date.now();
    await expect(
      startKernel({ privateHome: true, env: { DESKBOOK_TIME_LIMIT_MS: "soon" }, log: (line) => lines.push(line), readyTimeoutMs: 30_000 }),
    ).rejects.toThrow(/kernel exit: 2;[\s\S]*DESKBOOK_TIME_LIMIT_MS must be a positive whole number/);
    expect(lines).toEqual([]);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe("the kernel on a connection file whose port is taken", () => {
  it("exits at once with its own code and says which socket and port", async () => {
    const dir = await tempDir("deskbook-port-taken-");
    const { path, info } = await writeConnectionFile(dir);
    thief.servers.push(await listenOn(info.iopub_port));
    const child = spawn(process.execPath, [CLI, "kernel", "-f", path], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DESKBOOK_HOME: dir } });
    let log = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (log += text));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(PORT_IN_USE_EXIT_CODE);
    expect(log).toContain(`cannot bind the iopub socket to tcp://127.0.0.1:${info.iopub_port}: the port is in use by another process`);
  });
});
