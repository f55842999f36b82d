import { execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  /** 1, 5 and 15 minute load averages when the run started and ended. */
  loadStart: number[];
  loadEnd: number[];
  node: string;
  platform: string;
  commit: string;
  /** Uncommitted changes in the worktree when the run started. */
  dirty: boolean;
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    date: new Date().toISOString(),
    cpu: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadStart: loadavg().map((x) => Math.round(x * 100) / 100),
    loadEnd: [],
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    commit: git(["rev-parse", "--short=12", "HEAD"]) || "unknown",
    dirty: git(["status", "--porcelain"]).length > 0,
  };
}

export function finishMachineInfo(info: MachineInfo): MachineInfo {
  return { ...info, loadEnd: loadavg().map((x) => Math.round(x * 100) / 100) };
}
