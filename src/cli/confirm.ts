// `deskbook confirm TOKEN`: approves one destructive-looking press the helper refused with
// confirmation_required (config.json `confirm: "ask"`). The call must then be run again.
import { approvePending } from "../config/confirmations.js";
import { deskbookHome } from "../config/home.js";

export function runConfirm(args: string[]): number {
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    process.stderr.write("usage: deskbook confirm TOKEN   (the token a confirmation_required error names)\n");
    return 2;
  }
  const outcome = approvePending(deskbookHome(), args[0]!);
  if (!outcome.ok) {
    const why = {
      malformed: "is not a confirmation token (it looks like ABCD-EF23)",
      unknown: "is not waiting for confirmation (it was used already, or the helper never asked for it)",
      expired: "has expired; run the call again for a new token",
    }[outcome.reason];
    process.stderr.write(`deskbook confirm: ${args[0]} ${why}\n`);
    return 1;
  }
  const { pending } = outcome;
  process.stdout.write(`approved: ${pending.method} on ${JSON.stringify(pending.label)} in ${pending.app}, once; run the call again to do it\n`);
  return 0;
}
