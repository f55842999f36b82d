import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { SessionFormat, SessionSource } from "./types.js";

/** Upstream of the files in shared/data, as its README records them. */
const KNOWN: Array<{ match: RegExp; license: string; origin: (file: string) => string }> = [
  {
    match: /mini-swe-agent-gemini3pro[\\/]([^\\/]+)\.traj\.json$/,
    license: "MIT",
    origin: (id) =>
      `gruckion/mini-swe-agent@d12a71affd95403b036b2bdbd827349b77bfffb9:swebench_results/20251118_gemini-3-pro-74pct/trajs/${id}/${id}.traj.json`,
  },
  {
    match: /swe-gym-openhands[\\/]sample_raw\.json$/,
    license: "MIT (ADP repo; upstream dataset licence unchecked)",
    origin: () =>
      "zhu-yiqi/agent-data-protocol@df5b5adc3b61adbe0a0cc250d56a781cbffc867e:datasets/swe-gym_openhands_sampled_trajectories/sample_raw.json",
  },
  {
    match: /tau-bench[\\/]gpt-4o-airline\.json$/,
    license: "MIT",
    origin: () => "sierra-research/tau-bench@59a200c6d575d595120f1cb70fea53cef0632f6b:historical_trajectories/gpt-4o-airline.json",
  },
  {
    match: /swe-agent-function-calling[\\/](marshmallow-code__marshmallow-1867)\.function_calling_replace\.traj$/,
    license: "MIT",
    origin: () =>
      "SWE-agent/SWE-agent@3ea751c087f32b16e039a2233dd6eefecef325d5:trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1/marshmallow-code__marshmallow-1867.traj",
  },
  {
    match: /locomo[\\/]locomo\d*\.json$/,
    license: "CC-BY-NC-4.0",
    origin: () => "snap-research/LoCoMo@3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376:data/locomo10.json",
  },
];

/** Licence named by the first line of a LICENSE file next to `file`, if any. */
function siblingLicense(file: string): string | undefined {
  try {
    const dir = dirname(file);
    const name = readdirSync(dir).find((f) => /^licen[cs]e(\.(md|txt))?$/i.test(f));
    if (!name) return undefined;
    const first = readFileSync(join(dir, name), "utf8").split("\n", 1)[0]?.trim() ?? "";
    if (/^MIT License/i.test(first)) return "MIT";
    if (/Attribution-NonCommercial 4\.0/i.test(first)) return "CC-BY-NC-4.0";
    if (/^Apache License/i.test(first)) return "Apache-2.0";
    return first ? first.slice(0, 80) : undefined;
  } catch {
    return undefined;
  }
}

/** The source record for a file: known upstream when it is one of shared/data's files. */
export function sourceFor(path: string, _format: SessionFormat): SessionSource {
  for (const known of KNOWN) {
    const hit = known.match.exec(path);
    if (hit) return { path, license: known.license, origin: known.origin(hit[1] ?? basename(path)) };
  }
  const license = siblingLicense(path);
  return license ? { path, license } : { path };
}
