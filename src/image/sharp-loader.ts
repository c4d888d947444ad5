// sharp's native library adds ~20 MB to a process. The executor works on images only when a
// cell draws marks or zooms, so it loads sharp on first use; the helper, which encodes every
// screenshot, imports it directly.
import type sharpModule from "sharp";
import { loadOnce } from "../load-once.js";

type SharpFactory = typeof sharpModule;

/** sharp, loaded once on the first call; a failed load is tried again on the next. */
export const loadSharp: () => Promise<SharpFactory> = loadOnce<SharpFactory>("sharp");
