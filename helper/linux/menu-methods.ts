// menu: presses a menu item by its path of titles. The window's tree is read with its menu bar
// (GTK keeps closed menus' items in the tree, and pressing one activates it without opening
// the menus above it), the path is matched there (menu-path.ts), and the item is pressed by
// accessibility, so the app may stay in the background.
import type { HandlerTable } from "./method-types.js";
import { findMenuItem } from "./menu-path.js";
import { windowMethods } from "./window-methods.js";

type MenuMethods = Pick<HandlerTable, "menu">;

/** Large enough for an app's whole menu bar (mousepad's is ~300 items). */
const MENU_TREE_LIMITS = { maxNodes: 5_000, maxDepth: 40, maxText: 1_000 } as const;

export const menuMethods: MenuMethods = {
  menu: async ({ pid, path, window }, ctx) => {
    const params = { pid, menus: true, ...MENU_TREE_LIMITS, ...(window !== undefined ? { window } : {}) };
    const tree = await windowMethods.axTree(params, ctx);
    const leaf = findMenuItem(tree.nodes, path);
    await (await ctx.services.atspi()).performAction(leaf.node.i, "AXPress");
    return { path: leaf.path };
  },
};
