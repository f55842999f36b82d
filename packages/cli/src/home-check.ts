import { realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { resolveHome } from "@context-engine/plugin-loader";
import { ConfigError } from "./errors.js";
import type { CliIO } from "./io.js";

/** Kernel and device trees: never a place for chats, engine data or plugins (walking /proc/self never ends). */
const SYSTEM_TREES = ["/proc", "/sys", "/dev"];

/**
 * The context-engine home must be a folder (or a path where one can be created) outside the
 * system trees. Checked once before a command runs, so a wrong `CONTEXT_ENGINE_HOME` is one clear
 * message instead of a raw ENOTDIR, a silent exit or a hang.
 */
export function checkHome(io: CliIO): void {
  const home = resolveHome({ env: io.env, cwd: io.cwd });
  const source = io.env.CONTEXT_ENGINE_HOME?.trim() ? `CONTEXT_ENGINE_HOME=${io.env.CONTEXT_ENGINE_HOME}` : `the context-engine home ${home}`;
  const hints = ["Point CONTEXT_ENGINE_HOME at a folder (it is created when missing), or unset it to use ~/.context-engine."];
  // The nearest part of the path that exists decides: the home itself, or the folder it would be created in.
  let existing = home;
  for (;;) {
    try {
      statSync(existing);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") throw new ConfigError(`${source}: a part of the path is a file, not a folder`, { hints });
      if (code !== "ENOENT") throw new ConfigError(`${source}: cannot be read (${code ?? (error as Error).message})`, { hints });
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  if (existing === home) {
    const st = statSync(home);
    if (!st.isDirectory()) throw new ConfigError(`${source}: ${home} is ${st.isFile() ? "a file" : "a device or special file"}, not a folder`, { hints });
  }
  let real = existing;
  try {
    real = realpathSync(existing);
  } catch {
    // Unresolvable links are reported by the stat below.
  }
  if (SYSTEM_TREES.some((tree) => real === tree || real.startsWith(`${tree}/`))) {
    throw new ConfigError(`${source}: ${real} is a system folder (${real.split("/")[1]}), not a place for context-engine's files`, { hints });
  }
}
