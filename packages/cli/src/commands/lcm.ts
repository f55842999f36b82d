import { resolve } from "node:path";
import { parseCommandArgs } from "../args.js";
import { EXIT, InputError, UsageError } from "../errors.js";
import { LCM_HELP } from "../help.js";
import type { CliIO } from "../io.js";
import { checkSchemaName, checkSqliteStore, displayTarget, readBounded, scrub, urlSecrets, writeWhole } from "./lcm-io.js";

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
  const target = values.store ?? resolve(io.cwd, ".lcm", "lcm.sqlite");
  // The password of a postgres:// URL never reaches a message, whatever fails below.
  const secrets = urlSecrets(target);
  try {
    return await run(sub, rest, values, target, io);
  } catch (error) {
    if (secrets.length && error instanceof Error) {
      error.message = scrub(error.message, secrets);
      if (error.stack) error.stack = scrub(error.stack, secrets);
    }
    throw error;
  }
}

type LcmValues = { schema?: string | undefined; session?: string | undefined; as?: string | undefined; out?: string | undefined };

async function run(sub: "export" | "import", rest: string[], values: LcmValues, target: string, io: CliIO): Promise<number> {
  const isPostgres = /^postgres(ql)?:\/\//.test(target);
  const shown = isPostgres ? displayTarget(target) : target;
  checkSchemaName(values.schema, isPostgres);
  // Everything that can be refused without opening the store is refused first, so a refusal creates nothing.
  let raw: unknown;
  let outPath: string | undefined;
  if (sub === "export") {
    if (!values.session) throw new UsageError("lcm export: --session <id> is required");
    if (rest.length) throw new UsageError(`lcm export: unexpected argument ${JSON.stringify(rest[0])}`);
    outPath = values.out === undefined ? undefined : resolve(io.cwd, values.out);
  } else {
    const [file, ...extra] = rest;
    if (!file) throw new UsageError("lcm import: the export file is required (lcm import <file>)");
    if (extra.length) throw new UsageError(`lcm import: unexpected argument ${JSON.stringify(extra[0])}`);
    const text = readBounded(resolve(io.cwd, file), file);
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new InputError(`lcm import: ${file} is not a JSON export: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      raw = (await import("@context-engine/lcm")).parseConversationExport(raw, file);
    } catch (error) {
      throw new InputError(error instanceof Error ? error.message : String(error));
    }
  }
  if (!isPostgres) checkSqliteStore(resolve(io.cwd, target), sub === "export");
  const lcm = await import("@context-engine/lcm");
  const store = isPostgres
    ? await lcm.openPostgresStore({ url: target, ...(values.schema ? { schema: values.schema } : {}) }).catch((error: unknown) => {
        throw new InputError(`lcm: cannot open the PostgreSQL store ${shown}: ${error instanceof Error ? error.message : String(error)}`);
      })
    : openSqlite(lcm, resolve(io.cwd, target));
  try {
    if (sub === "export") {
      const doc = await lcm.exportConversation(store, values.session!);
      if (!doc) throw new InputError(`lcm export: no conversation for session ${JSON.stringify(values.session)} in ${shown}`);
      const text = `${JSON.stringify(doc)}\n`;
      if (outPath) writeWhole(outPath, text);
      else io.stdout.write(text);
      io.stderr.write(`exported ${doc.messages.length} messages and ${doc.summaries.length} summaries of ${values.session}\n`);
      return EXIT.ok;
    }
    const report = await lcm.importConversation(store, raw, values.as ? { as: values.as } : {}).catch((error: unknown) => {
      throw new InputError(error instanceof Error ? error.message : String(error));
    });
    io.stdout.write(`imported ${report.messages} messages and ${report.summaries} summaries into ${shown}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

function openSqlite(lcm: typeof import("@context-engine/lcm"), path: string) {
  try {
    return lcm.openLcmStore({ path });
  } catch (error) {
    throw new InputError(`lcm: cannot open the SQLite store ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
