/**
 * Through Debian's jupyter_client and the installed kernelspec (whose argv runs node through
 * sh, src/kernel/extra-ca-handoff.ts): the kernel process Jupyter started is node itself,
 * started without NODE_EXTRA_CA_CERTS, and cells see the value Jupyter was given. The kernel
 * runs on Unix sockets in the stack's directory (stack.ts says why not on TCP ports).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { rootCertificates } from "node:tls";
import { JupyterStack, SYSTEM_PYTHON } from "./stack.js";

const DRIVER = `
import glob, json, os, stat, sys
from jupyter_client import KernelManager
os.environ["NODE_EXTRA_CA_CERTS"] = sys.argv[1]
km = KernelManager(kernel_name="deskbook", transport="ipc", ip=sys.argv[2])
km.start_kernel()
try:
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    pid = km.provisioner.process.pid
    start_env = dict(e.split("=", 1) for e in open(f"/proc/{pid}/environ").read().split("\\0") if "=" in e)
    results = []
    def hook(msg):
        if msg["msg_type"] == "execute_result":
            results.append(msg["content"]["data"]["text/plain"])
    kc.execute_interactive("JSON.stringify([process.env.NODE_EXTRA_CA_CERTS ?? null, process.env.DESKBOOK_NODE_EXTRA_CA_CERTS ?? null])", timeout=60, output_hook=hook)
    print(json.dumps({
        # Bound by the kernel: the Unix sockets it listens on, named by jupyter_client.
        "sockets": sorted(os.path.basename(p) for p in glob.glob(glob.escape(sys.argv[2]) + "-*") if stat.S_ISSOCK(os.lstat(p).st_mode)),
        "program": os.path.basename(os.readlink(f"/proc/{pid}/exe")),
        "kernel_extra_ca": start_env.get("NODE_EXTRA_CA_CERTS"),
        "kernel_carrier": start_env.get("DESKBOOK_NODE_EXTRA_CA_CERTS"),
        "cell": results,
    }))
finally:
    km.shutdown_kernel(now=True)
`;

let stack: JupyterStack;
beforeAll(async () => {
  stack = await JupyterStack.create();
});
afterAll(async () => {
  await stack?.cleanup();
}, 30_000);

it("jupyter_client's kernel is node without NODE_EXTRA_CA_CERTS, and its cells get it back", async () => {
  const caFile = join(stack.dir, "extra ca.pem");
  await writeFile(caFile, rootCertificates[0]!);
  const run = await stack.run(SYSTEM_PYTHON, ["-c", DRIVER, caFile, stack.kernelSockets], { timeoutMs: 90_000 });
  expect(run.code, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout.trim().split("\n").pop() ?? "") as Record<string, unknown>;
  expect(report).toEqual({
    sockets: ["kernel-1", "kernel-2", "kernel-3", "kernel-4", "kernel-5"],
    program: basename(realpathSync(process.execPath)),
    kernel_extra_ca: null,
    kernel_carrier: caFile,
    cell: [`'${JSON.stringify([caFile, null])}'`],
  });
}, 120_000);
