import type { ContextEngine } from "@context-engine/core";
import { cpuMs } from "./stats.js";

/** The contract's hooks a host calls (core/src/engine.ts); `getStatus` and tool schemas included, they run on its path too. */
const HOOKS = [
  "updateFromResponse",
  "shouldCompress",
  "compress",
  "onSessionStart",
  "onSessionEnd",
  "onSessionReset",
  "updateModel",
  "getToolSchemas",
  "handleToolCall",
  "shouldCompressPreflight",
  "shouldCompressInfo",
  "pruneToolResultsOnly",
  "hasContentToCompress",
  "getStatus",
  "selectContext",
  "onTurnComplete",
] as const;

/** Wall and CPU time spent inside the engine's hooks since the last `take()`. */
export interface HookClock {
  take(): { wallMs: number; cpuMs: number; calls: number };
}

/**
 * Time the engine's hooks as the host calls them: each outermost call from its start until its result (or
 * its promise) settles, so a hook calling another is counted once. The CPU time is the process's over that
 * span: during a hook the engine's background work waits (LCM's work clock), so it is the hook's own.
 */
export function clockHooks(engine: ContextEngine): HookClock {
  let wallMs = 0;
  let cpu = 0;
  let calls = 0;
  let depth = 0;
  const target = engine as unknown as Record<string, unknown>;
  for (const name of HOOKS) {
    const original = target[name];
    if (typeof original !== "function") continue;
    target[name] = function timedHook(this: unknown, ...args: unknown[]) {
      if (depth > 0) return (original as (...a: unknown[]) => unknown).apply(this, args);
      depth++;
      calls++;
      const t = performance.now();
      const c = cpuMs();
      const done = () => {
        depth--;
        wallMs += performance.now() - t;
        cpu += cpuMs() - c;
      };
      let result: unknown;
      try {
        result = (original as (...a: unknown[]) => unknown).apply(this, args);
      } catch (error) {
        done();
        throw error;
      }
      if (result instanceof Promise) return result.finally(done);
      done();
      return result;
    };
  }
  return {
    take() {
      const r = { wallMs, cpuMs: cpu, calls };
      wallMs = 0;
      cpu = 0;
      calls = 0;
      return r;
    },
  };
}
