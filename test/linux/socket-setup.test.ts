// prepareSocket's probe of an existing socket file: live listener, stale file, dying listener.
import { linkSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prepareSocket } from "../../helper/linux/socket-setup.js";

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function listening(): Promise<{ path: string; server: Server }> {
  const dir = mkdtempSync(join(tmpdir(), "dbk-sock-"));
  dirs.push(dir);
  const path = join(dir, "helper.sock");
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, server };
}

describe("prepareSocket", () => {
  it("says taken while a helper listens", async () => {
    const { path } = await listening();
    expect(await prepareSocket(path)).toBe("taken");
  });

  it("clears the socket file of a listener that died during the probe", async () => {
    const { path, server } = await listening();
    // Node removes the file when its server closes; a killed helper leaves it. Keep a link to
    // put it back, so the probe meets what a kill leaves: a file whose listener closed with
    // the probe's connect in its backlog (ECONNRESET).
    linkSync(path, `${path}.keep`);
    const probing = prepareSocket(path);
    server.close();
    renameSync(`${path}.keep`, path);
    expect(await probing).toBe("ready");
  });
});
