import type { TsdownPlugin as Plugin } from "tsdown";
import { packageBuild } from "../../../tooling/tsdown.base.ts";

/**
 * `@types/better-sqlite3` is a dev dependency: the published declarations must
 * not import it, or consumers with `skipLibCheck: false` get TS7016. The
 * bundled declarations keep the import line of the SQLite store module even
 * where nothing public uses it; drop that line, and fail the build if a
 * public declaration does use the module's types.
 */
function privateTypes(module: string): Plugin {
  const importLine = new RegExp(`^import (?:\\* as )?(\\w+) from "${module}";\\n`, "m");
  return {
    name: "lcm:private-types",
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type !== "chunk" || !/\.d\.[cm]?ts$/.test(file.fileName)) continue;
        const found = importLine.exec(file.code);
        if (!found) {
          if (file.code.includes(`"${module}"`)) this.error(`${file.fileName} refers to "${module}" in a form this check does not know`);
          continue;
        }
        const rest = file.code.replace(importLine, "");
        if (new RegExp(`\\b${found[1]}\\b`).test(rest.replace(/\/\*[\s\S]*?\*\//g, ""))) {
          this.error(`${file.fileName} uses ${module}'s types (${found[1]}) in a public declaration: keep them internal`);
        }
        file.code = rest;
      }
    },
  };
}

export default packageBuild({ plugins: [privateTypes("better-sqlite3")] });
