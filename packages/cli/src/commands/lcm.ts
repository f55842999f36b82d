import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseCommandArgs } from "../args.js";
import { EXIT, InputError, UsageError } from "../errors.js";
import { LCM_HELP } from "../help.js";
import type { CliIO } from "../io.js";

/** `context-engine lcm export|import`: move one conversation between LCM stores (SQLite file or PostgreSQL). */
export async function lcmCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("lcm", argv, {
    store: { type: "string" },
    schema: { type: "string" },
    session: { type: "string" },
    as: { type: "string" },
    out: { type: "string", short: "o" },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === "help" || sub === undefined) {
    (sub === undefined && !values.help ? io.stderr : io.stdout).write(LCM_HELP);
    return sub === undefined && !values.help ? EXIT.usage : EXIT.ok;
  }
  if (sub !== "export" && sub !== "import") throw new UsageError(`lcm: unknown subcommand ${JSON.stringify(sub)}`, { hints: ["Use 'context-engine lcm export' or 'context-engine lcm import'."] });
  const lcm = await import("@context-engine/lcm");
  const target = values.store ?? resolve(io.cwd, ".lcm", "lcm.sqlite");
  const store = /^postgres(ql)?:\/\//.test(target)
    ? await lcm.openPostgresStore({ url: target, ...(values.schema ? { schema: values.schema } : {}) })
    : lcm.openLcmStore({ path: resolve(io.cwd, target) });
  try {
    if (sub === "export") {
      if (!values.session) throw new UsageError("lcm export: --session <id> is required");
      if (rest.length) throw new UsageError(`lcm export: unexpected argument ${JSON.stringify(rest[0])}`);
      const doc = await lcm.exportConversation(store, values.session);
      if (!doc) throw new InputError(`lcm export: no conversation for session ${JSON.stringify(values.session)} in ${target}`);
      const text = `${JSON.stringify(doc)}\n`;
      if (values.out) writeFileSync(resolve(io.cwd, values.out), text);
      else io.stdout.write(text);
      io.stderr.write(`exported ${doc.messages.length} messages and ${doc.summaries.length} summaries of ${values.session}\n`);
      return EXIT.ok;
    }
    const [file, ...extra] = rest;
    if (!file) throw new UsageError("lcm import: the export file is required (lcm import <file>)");
    if (extra.length) throw new UsageError(`lcm import: unexpected argument ${JSON.stringify(extra[0])}`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(resolve(io.cwd, file), "utf8"));
    } catch (error) {
      throw new InputError(`lcm import: ${file} is not a JSON export: ${error instanceof Error ? error.message : String(error)}`);
    }
    const report = await lcm.importConversation(store, raw, values.as ? { as: values.as } : {}).catch((error: unknown) => {
      throw new InputError(error instanceof Error ? error.message : String(error));
    });
    io.stdout.write(`imported ${report.messages} messages and ${report.summaries} summaries into ${target}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
