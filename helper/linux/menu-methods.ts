// menu: presses a menu item by its path of titles. The window's tree is read with its menu bar
// (GTK keeps closed menus' items in the tree, and pressing one activates it without opening
// the menus above it), the path is matched there (menu-path.ts), and the item is pressed by
// accessibility, so the app may stay in the background.
import type { MenuParams } from "../../src/helper/protocol.js";
import type { CallContext, HandlerTable } from "./method-types.js";
import { findMenuItem, type MenuLeaf } from "./menu-path.js";
import { windowMethods } from "./window-methods.js";

type MenuMethods = Pick<HandlerTable, "menu">;

/** Large enough for an app's whole menu bar (mousepad's is ~300 items). */
const MENU_TREE_LIMITS = { maxNodes: 5_000, maxDepth: 40, maxText: 1_000 } as const;

export const menuMethods: MenuMethods = {
  menu: async (params, ctx) => {
    // The confirmation rule (press-target.ts) may have resolved the item already: press that one.
    const leaf = ctx.menuItem ?? (await resolveMenuItem(params, ctx));
    await (await ctx.services.atspi()).performAction(leaf.node.i, "AXPress");
    return { path: leaf.path };
  },
};

/** The item `path` names in the window's tree, matched as the menu method matches it. */
export async function resolveMenuItem({ pid, path, window }: Pick<MenuParams, "pid" | "path" | "window">, ctx: CallContext): Promise<MenuLeaf> {
  const params = { pid, menus: true, ...MENU_TREE_LIMITS, ...(window !== undefined ? { window } : {}) };
  const tree = await windowMethods.axTree(params, ctx);
  return findMenuItem(tree.nodes, path);
}
