// sharp's native library adds ~20 MB to a process. The executor works on images only when a
// cell draws marks or zooms, so it loads sharp on first use; the helper, which encodes every
// screenshot, imports it directly.
import type sharpModule from "sharp";

type SharpFactory = typeof sharpModule;

let loading: Promise<SharpFactory> | undefined;

/** sharp, loaded once on the first call. */
export function loadSharp(): Promise<SharpFactory> {
  loading ??= import("sharp").then((module) => module.default);
  return loading;
}
