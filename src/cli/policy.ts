// `deskbook allow APP…` and `deskbook deny APP…`: the approval lists in config.json.
import { addToList } from "../config/config-edit.js";
import { deskbookHome } from "../config/home.js";
import { join } from "node:path";

export async function runPolicy(list: "allow" | "deny", apps: string[]): Promise<number> {
  if (apps.length === 0 || apps.some((a) => a.startsWith("-"))) {
    process.stderr.write(`usage: deskbook ${list} APP [APP…]   (an app's name, desktop/bundle id, or executable)\n`);
    return 2;
  }
  const home = deskbookHome();
  for (const app of apps) addToList(home, list, app);
  const effect = list === "allow" ? "approved without asking (this also unlocks a blocked app)" : "always refused (deny wins over allow)";
  process.stdout.write(`${apps.join(", ")}: ${effect}; written to ${join(home, "config.json")}\n`);
  return 0;
}
