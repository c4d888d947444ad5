/**
 * `deskbook gateway-kernel` removes its temp directory (the connection file's) however it ends:
 * EG's SIGTERM, a SIGHUP nobody handles, a start that fails; and keeps it, with the kernel, on
 * SIGINT, which is EG's interrupt. Each case is the real command, started as EG starts it, with
 * this test as the gateway's response address. (SIGKILL cannot be handled: scratch-dir.ts.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConnectionFile } from "../../src/jupyter/connection.js";
import { KernelClient } from "../../src/client/kernel-client.js";
import { CLI } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";
import { waitFor } from "../jupyter-stack/stack.js";

const KERNEL_ID = "3c9e7a10-5b2d-4f6e-9a8b-7c6d5e4f3a2b";
const PUBLIC_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");

interface GatewayKernel {
  child: ChildProcess;
  /** The kernel's temp dir (TMPDIR/deskbook-gateway-kernel-XXXXXX), once it made it. */
  dir: () => string | undefined;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts the command; `up` resolves once the connection info reached the "gateway" (the kernel then serves). */
async function gatewayKernel(publicKey = PUBLIC_KEY, ip = "127.0.0.1"): Promise<GatewayKernel & { up: Promise<void> }> {
  const root = await tempDir("deskbook-gateway-exit-");
  const tmp = join(root, "tmp");
  mkdirSync(tmp);
  const gateway = createServer((socket) => {
    socket.resume();
    socket.once("end", () => {
      socket.end();
      gateway.close();
      reached();
    });
  });
  let reached: () => void = () => undefined;
  const up = new Promise<void>((resolve) => (reached = resolve));
  gateway.listen(0, "127.0.0.1");
  await once(gateway, "listening");
  const port = (gateway.address() as AddressInfo).port;
  const args = [CLI, "gateway-kernel", "--kernel-id", KERNEL_ID, "--response-address", `127.0.0.1:${port}`, "--public-key", publicKey, "--ip", ip];
  const child = spawn(process.execPath, args, { env: { ...process.env, TMPDIR: tmp, DESKBOOK_HOME: join(root, "home") }, stdio: ["ignore", "ignore", "pipe"] });
  started.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const ended = once(child, "exit").then(([code, signal]) => {
    gateway.close();
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const dir = () => readdirSync(tmp).filter((name) => name.startsWith("deskbook-gateway-kernel-")).map((name) => join(tmp, name))[0];
  return { child, dir, up, ended, stderr: () => stderr };
}

describe("deskbook gateway-kernel's temp directory", () => {
  it("goes on EG's SIGTERM, after the kernel shut down", async () => {
    const kernel = await gatewayKernel();
    await kernel.up;
    const dir = kernel.dir();
    expect(dir && existsSync(join(dir, `kernel-${KERNEL_ID}.json`)), kernel.stderr()).toBe(true);
    kernel.child.kill("SIGTERM");
    expect(await kernel.ended, kernel.stderr()).toEqual({ code: 0, signal: null });
    expect(existsSync(dir!)).toBe(false);
  });

  it("stays on SIGINT, EG's interrupt: the running cell stops, the kernel serves on", async () => {
    const kernel = await gatewayKernel();
    await kernel.up;
    const dir = kernel.dir()!;
    const client = await KernelClient.connect(await readConnectionFile(join(dir, `kernel-${KERNEL_ID}.json`)));
    try {
      const marker = join(dir, "..", "spinning");
      const running = client.execute(`require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`, { timeoutMs: 30_000 });
      await waitFor("the cell to spin", 20_000, async () => (existsSync(marker) ? true : undefined));
      kernel.child.kill("SIGINT");
      expect((await running).reply.content).toMatchObject({ status: "error", evalue: "Stopped: interrupted." });
      expect(existsSync(dir)).toBe(true);
      expect((await client.execute("6 * 7")).reply.content.status).toBe("ok");
    } finally {
      await client.close();
    }
    kernel.child.kill("SIGTERM");
    expect((await kernel.ended).code).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it("goes on a SIGHUP, which nothing in the kernel handles", async () => {
    const kernel = await gatewayKernel();
    await kernel.up;
    const dir = kernel.dir()!;
    kernel.child.kill("SIGHUP");
    expect(await kernel.ended).toEqual({ code: null, signal: "SIGHUP" });
    expect(existsSync(dir)).toBe(false);
  });

  it("goes when the start fails (a public key that is not one), with the error said", async () => {
    const kernel = await gatewayKernel("bm90IGEga2V5");
    expect(await kernel.ended).toEqual({ code: 1, signal: null });
    expect(kernel.stderr()).toContain("deskbook gateway-kernel: the gateway's public key is not a base64 RSA public key");
    expect(kernel.dir()).toBeUndefined();
  });

  it("goes when the start fails (an --ip that is not this machine's), with the address and error said", async () => {
    const kernel = await gatewayKernel(PUBLIC_KEY, "10.255.255.1");
    expect(await kernel.ended).toEqual({ code: 1, signal: null });
    expect(kernel.stderr()).toContain("deskbook gateway-kernel: cannot listen on 10.255.255.1 at any port: EADDRNOTAVAIL");
    expect(kernel.dir()).toBeUndefined();
  });
});
