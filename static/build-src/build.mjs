// Builds static/vendor/ from the pinned packages in package-lock.json:
//   cd static/build-src && npm ci && npm run build
// The output is committed, so running Kernel Dojo needs neither npm nor a network.
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, "..", "vendor");
const mod = (p) => join(here, "node_modules", p);

rmSync(vendor, { recursive: true, force: true });
mkdirSync(join(vendor, "katex"), { recursive: true });
mkdirSync(join(vendor, "swagger-ui"), { recursive: true });

await build({
  entryPoints: [join(here, "editor.js")],
  bundle: true, minify: true, format: "iife", target: "es2020",
  outfile: join(vendor, "editor.js"), legalComments: "eof",
});

const copies = [
  ["htmx.org/dist/htmx.min.js", "htmx.min.js"],
  ["katex/dist/katex.min.js", "katex/katex.min.js"],
  ["katex/dist/katex.min.css", "katex/katex.min.css"],
  ["katex/dist/contrib/auto-render.min.js", "katex/auto-render.min.js"],
  ["katex/dist/fonts", "katex/fonts"],
  ["uplot/dist/uPlot.iife.min.js", "uPlot.iife.min.js"],
  ["uplot/dist/uPlot.min.css", "uPlot.min.css"],
  // /api/docs without a CDN (issue #13): Swagger UI's prebuilt bundle and CSS
  ["swagger-ui-dist/swagger-ui-bundle.js", "swagger-ui/swagger-ui-bundle.js"],
  ["swagger-ui-dist/swagger-ui.css", "swagger-ui/swagger-ui.css"],
  ["swagger-ui-dist/LICENSE", "swagger-ui/LICENSE"],
];
// KaTeX's CSS lists woff2 first; every browser we support takes it, so the
// woff/ttf copies (1 MB) are left out.
const keep = (src) => !/\.(woff|ttf)$/.test(src);
for (const [from, to] of copies) cpSync(mod(from), join(vendor, to), { recursive: true, filter: keep });

const lock = JSON.parse(readFileSync(join(here, "package-lock.json"), "utf8"));
const versions = Object.fromEntries(
  Object.entries(lock.packages).filter(([k]) => k.startsWith("node_modules/") && !k.slice(13).includes("node_modules/"))
    .map(([k, v]) => [k.slice(13), v.version]));
writeFileSync(join(vendor, "VERSIONS.json"), JSON.stringify(versions, null, 1) + "\n");
console.log("static/vendor built");
