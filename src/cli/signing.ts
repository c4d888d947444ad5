// `deskbook signing [--create]` (macOS): is the local code-signing identity there, and make it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCertificateFiles, importIdentity } from "../macos/certificate.js";
import { runCommand, type CommandRunner } from "../macos/command-runner.js";
import { notMacosMessage } from "../macos/not-macos.js";
import { findSigningIdentity, SIGNING_IDENTITY_NAME } from "../macos/signing-identity.js";

const USAGE = "usage: deskbook signing [--create]\n";

export async function runSigning(args: string[]): Promise<number> {
  if (args.some((arg) => arg !== "--create")) {
    process.stderr.write(`deskbook signing: unknown option ${args.find((arg) => arg !== "--create")}\n${USAGE}`);
    return 2;
  }
  if (process.platform !== "darwin") {
    process.stderr.write(notMacosMessage("signing"));
    return 1;
  }
  return signingMac(args.includes("--create"), runCommand);
}

async function signingMac(create: boolean, run: CommandRunner): Promise<number> {
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  const existing = await findSigningIdentity(run);
  if (existing) {
    say(`"${SIGNING_IDENTITY_NAME}" is in the keychain (${existing.sha1}${existing.status ? `, ${existing.status}: fine, it need not be trusted` : ""})`);
    return 0;
  }
  if (!create) {
    say(`"${SIGNING_IDENTITY_NAME}" is not in the keychain: the helper is signed ad hoc, and every rebuild loses its permission grants.`);
    say("Make it with `deskbook signing --create`.");
    return 1;
  }
  await createAndImport(run);
  const made = await findSigningIdentity(run);
  if (!made) {
    process.stderr.write(`deskbook signing: the certificate was imported but \`security find-identity -p codesigning\` does not list "${SIGNING_IDENTITY_NAME}"\n`);
    return 1;
  }
  say(`created "${SIGNING_IDENTITY_NAME}" (${made.sha1}) in the login keychain.`);
  say("Now run `deskbook setup --rebuild` to sign the helper with it; grant its permissions once more, and they will survive later rebuilds.");
  return 0;
}

/** The key never leaves a private temporary directory, removed afterwards. */
async function createAndImport(run: CommandRunner): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "deskbook-signing-"));
  try {
    const files = await createCertificateFiles(dir, run);
    await importIdentity(files, run);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
