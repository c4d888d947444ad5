// What `deskbook setup` and `deskbook signing` say on a machine that is not a Mac.
export function notMacosMessage(command: "setup" | "signing", platform: string = process.platform): string {
  const elsewhere = platform === "linux" ? "on Linux the helper needs no setup or signing" : `there is nothing to ${command} on ${platform}`;
  return `deskbook ${command} is for macOS; ${elsewhere}: run \`deskbook doctor\` to see what this machine has\n`;
}
