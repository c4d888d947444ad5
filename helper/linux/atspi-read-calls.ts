// Which AT-SPI calls only read. Two things hang on it: such a call may take an app's direct
// connection, and the call encoder may keep its bytes for the next read. Neither may happen to a
// call that changes the app (DoAction, Set*, InsertText, GrabFocus, selections): on the bus its
// reply comes after every event the change made, and its arguments can be what a user typed.

const READ_MEMBERS: ReadonlySet<string> = new Set([
  "GetItems", "GetChildren", "GetRole", "GetState", "GetInterfaces", "GetAttributes", "GetExtents",
  "GetText", "GetActions", "GetName", "GetNSelections", "GetSelection", "GetAccessibleAtPoint", "Get",
]);
const PROPERTIES = "org.freedesktop.DBus.Properties";

/** True for a call that only reads the app (`Get` only as Properties.Get). */
export function isReadCall(iface: string, member: string): boolean {
  if (!READ_MEMBERS.has(member)) return false;
  return member !== "Get" || iface === PROPERTIES;
}
