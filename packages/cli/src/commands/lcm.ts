import { resolve } from "node:path";
import { parseCommandArgs } from "../args.js";
import { EXIT, InputError, UsageError } from "../errors.js";
import { LCM_HELP } from "../help.js";
import type { CliIO } from "../io.js";
import { listConversations, pickConversation } from "../lcm/list.js";
import { storeProblem } from "../lcm/store-errors.js";
import { requireExistingSqlite, resolveStoreTarget, type StoreTarget } from "../lcm/store-target.js";
import { checkSchemaName, checkSqliteStore, readBounded, scrub, urlSecrets, writeWhole } from "./lcm-io.js";

const SUBCOMMANDS = ["list", "export", "import"] as const;

/** `context-engine lcm list|export|import`: see and move conversations of LCM stores (SQLite file or PostgreSQL). */
export async function lcmCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("lcm", argv, {
    store: { type: "string" },
    schema: { type: "string" },
    session: { type: "string" },
    as: { type: "string" },
    out: { type: "string", short: "o" },
    json: { type: "boolean" },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === "help" || sub === undefined) {
    (sub === undefined && !values.help ? io.stderr : io.stdout).write(LCM_HELP);
    return sub === undefined && !values.help ? EXIT.usage : EXIT.ok;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`lcm: unknown subcommand ${JSON.stringify(sub)}`, { hints: [`Use one of: ${SUBCOMMANDS.map((s) => `context-engine lcm ${s}`).join(", ")}.`] });
  }
  const { loadConfig } = await import("@context-engine/plugin-loader");
  const loaded = values.store === undefined ? await loadConfig({ cwd: io.cwd, env: { ...io.env }, ...(values.config ? { path: values.config } : {}) }) : undefined;
  const resolved = resolveStoreTarget(values.store, { cwd: io.cwd, env: io.env, ...(loaded ? { loaded } : {}) });
  const schema = resolved.kind === "postgres" ? (values.schema ?? resolved.schema) : undefined;
  // Say which schema: an empty listing of the wrong one must not read as an empty store.
  const target = resolved.kind === "postgres" && schema ? { ...resolved, schema, shown: `${resolved.shown}, schema ${schema}` } : resolved;
  // The password of a postgres:// URL never reaches a message, whatever fails below.
  const secrets = target.kind === "postgres" ? urlSecrets(target.url) : [];
  try {
    return await run(sub as (typeof SUBCOMMANDS)[number], rest, values, target, io);
  } catch (error) {
    if (secrets.length && error instanceof Error) {
      error.message = scrub(error.message, secrets);
      if (error.stack) error.stack = scrub(error.stack, secrets);
    }
    throw error;
  }
}

type LcmValues = { schema?: string | undefined; session?: string | undefined; as?: string | undefined; out?: string | undefined; json?: boolean | undefined };

async function run(sub: (typeof SUBCOMMANDS)[number], rest: string[], values: LcmValues, target: StoreTarget, io: CliIO): Promise<number> {
  checkSchemaName(values.schema, target.kind === "postgres");
  if (sub !== "import") requireExistingSqlite(target);
  if (sub === "export" && rest.length) throw new UsageError(`lcm export: unexpected argument ${JSON.stringify(rest[0])}`);
  if (sub === "export" && !values.session) throw new UsageError("lcm export: --session <id or prefix> is required", { hints: ["'context-engine lcm list' shows the stored conversations."] });
  // Everything that can be refused without opening the store is refused first, so a refusal creates nothing.
  const doc = sub === "import" ? await readImport(rest, io) : null;
  if (target.kind === "sqlite") checkSqliteStore(target.path, sub !== "import");

  const store = await openStore(target, values.schema, sub !== "import");
  try {
    if (sub === "list") return await listConversations(store, target, io, { json: values.json === true });
    if (sub === "export") return await exportOne(store, target, values.session!, values.out, io);
    return await importOne(store, target, doc, values.as, io);
  } catch (error) {
    throw storeProblem(error, target.shown) ?? error;
  } finally {
    await store.close();
  }
}

/** The export document to import: read within a size bound and validated whole before any store is opened. */
async function readImport(rest: string[], io: CliIO): Promise<unknown> {
  const [file, ...extra] = rest;
  if (!file) throw new UsageError("lcm import: the export file is required (lcm import <file>)");
  if (extra.length) throw new UsageError(`lcm import: unexpected argument ${JSON.stringify(extra[0])}`);
  const text = readBounded(resolve(io.cwd, file), file);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InputError(`lcm import: ${file} is not a JSON export: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return (await import("@context-engine/lcm")).parseConversationExport(raw, file);
  } catch (error) {
    throw new InputError(error instanceof Error ? error.message : String(error));
  }
}

type Lcm = typeof import("@context-engine/lcm");
export type OpenedStore = Awaited<ReturnType<Lcm["openPostgresStore"]>>;

/** Open the store; a read (`list`, `export`) never creates anything: a missing schema is an error, not a new one. */
async function openStore(target: StoreTarget, schemaFlag: string | undefined, read: boolean): Promise<OpenedStore> {
  const lcm = await import("@context-engine/lcm");
  try {
    if (target.kind === "postgres") {
      const schema = schemaFlag ?? target.schema;
      return await lcm.openPostgresStore({ url: target.url, ...(schema ? { schema } : {}), ...(read ? { createSchema: false } : {}) });
    }
    const schema = schemaFlag;
    if (schema) throw new UsageError("lcm: --schema applies to a postgres:// store only");
    // The SQLite store's close() is synchronous; awaiting it is the same.
    return lcm.openLcmStore({ path: target.path }) as unknown as OpenedStore;
  } catch (error) {
    throw storeProblem(error, target.shown) ?? error;
  }
}

async function exportOne(store: OpenedStore, target: StoreTarget, wanted: string, out: string | undefined, io: CliIO): Promise<number> {
  const lcm = await import("@context-engine/lcm");
  const sessionId = await pickConversation(store, wanted, target);
  const doc = await lcm.exportConversation(store, sessionId);
  if (!doc) throw new InputError(`lcm export: no conversation for session ${JSON.stringify(sessionId)} in ${target.shown}`);
  const text = `${JSON.stringify(doc)}\n`;
  if (out) {
    // Written whole or not at all: a temp file renamed into place, owner-only.
    writeWhole(resolve(io.cwd, out), text);
  } else io.stdout.write(text);
  io.stderr.write(`exported ${doc.messages.length} messages and ${doc.summaries.length} summaries of ${sessionId}\n`);
  return EXIT.ok;
}

async function importOne(store: OpenedStore, target: StoreTarget, raw: unknown, as: string | undefined, io: CliIO): Promise<number> {
  const lcm = await import("@context-engine/lcm");
  const report = await lcm.importConversation(store, raw, as ? { as } : {}).catch((error: unknown) => {
    throw storeProblem(error, target.shown) ?? new InputError(error instanceof Error ? error.message : String(error));
  });
  io.stdout.write(`imported ${report.messages} messages and ${report.summaries} summaries into ${target.shown}\n`);
  return EXIT.ok;
}
