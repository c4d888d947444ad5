// Run by `npm run build` after tsc: replaces the two entry points Deskbook starts as processes
// (the CLI, which Jupyter runs as the kernel, and the executor the kernel forks) with one file
// each holding Deskbook's own modules. Node's ES module loader resolves, reads and links every
// file on its own, and that was about half of each process's start (issue 12, docs/design.md
// "Where a kernel's start goes"). Packages in node_modules stay outside, loaded as before.
//
// Each bundle is written where its entry was, and each module's `import.meta.url` becomes the
// URL its own file has in dist, computed from the bundle's URL at run time: paths found from
// it (package.json, docs/api.md, the executor's and the Linux helper's entry points) stay what
// they were. What a module imports lazily (`import()`) goes into a chunk of its own beside the
// bundle, loaded on that call as before: in one file, the packages such modules import would
// be imported at the top, at every start.
// Every other file in dist stays tsc's output, for the tests and anything importing it.
import { build } from "esbuild";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRIES = ["dist/src/cli/main.js", "dist/src/executor/main.js"];
const MARK = "// Deskbook's modules in one file, made by scripts/bundle.mjs from tsc's output.";
/** Chunks are named `bundle-chunk-<hash>.js`, so each build can remove the last build's. */
const CHUNK = /^bundle-chunk-[A-Z0-9]+\.js(\.map)?$/;

/** Rewrites `import.meta.url` in each bundled module to that module's own URL in dist. */
function ownImportMetaUrl(bundleDir) {
  return {
    name: "own-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const own = relative(bundleDir, args.path).split(sep).join("/");
        const url = `new URL(${JSON.stringify(own.startsWith(".") ? own : `./${own}`)}, import.meta.url).href`;
        return { contents: source.replaceAll("import.meta.url", url), loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

for (const entry of ENTRIES) {
  const file = join(ROOT, entry);
  const dir = dirname(file);
  const source = await readFile(file, "utf8");
  if (source.includes(MARK)) throw new Error(`${entry} is a bundle already: run tsc first`);
  const result = await build({
    entryPoints: { [basename(file, ".js")]: file },
    outdir: dir,
    chunkNames: "bundle-[name]-[hash]",
    allowOverwrite: true,
    write: false,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "linked",
    banner: { js: MARK },
    plugins: [ownImportMetaUrl(dir)],
    logLevel: "error",
  });
  for (const name of await readdir(dir)) if (CHUNK.test(name)) await rm(join(dir, name));
  for (const out of result.outputFiles) await writeFile(out.path, out.contents);
}
