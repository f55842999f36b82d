import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ok } from "./helpers.js";
import { enabled, PNPM, publishedPackages } from "./workspace.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The directory holding one tarball per published package, packed once for every test file. */
    tarballs: string;
  }
}

/**
 * Pack every published package once (pnpm pack rewrites workspace: ranges, as `changeset publish`
 * does), so the test files can run side by side without packing the same directories at once.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (!enabled) return undefined;
  const tarballs = mkdtempSync(join(tmpdir(), "ce-e2e-tarballs-"));
  await Promise.all(publishedPackages().map((p) => ok("npx", [...PNPM, "pack", "--pack-destination", tarballs], p.dir)));
  project.provide("tarballs", tarballs);
  return () => rmSync(tarballs, { recursive: true, force: true });
}
