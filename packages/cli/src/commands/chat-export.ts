import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseCommandArgs } from "../args.js";
import { EXIT, UsageError } from "../errors.js";
import { CHAT_EXPORT_HELP } from "../help.js";
import type { CliIO } from "../io.js";
import { exportChat, findChatId } from "../chat/export.js";
import { openStore } from "../chat/resume.js";

/** `chat export <id> [--out FILE]`: one JSON document with the transcript and its ledger, on stdout or in FILE. */
export async function chatExportCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("chat export", argv, { out: { type: "string", short: "o" } });
  if (values.help) {
    io.stdout.write(CHAT_EXPORT_HELP);
    return EXIT.ok;
  }
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError("chat export: missing the chat id", { hints: ["Use 'context-engine chat export <id> [--out FILE]'; 'context-engine chat --list' shows the ids."] });
  if (extra.length) throw new UsageError(`chat export: unexpected argument ${JSON.stringify(extra[0])}; one chat id, and --out <file> for a file`);
  const store = openStore(io);
  const chatId = findChatId(store, id);
  const text = `${JSON.stringify(exportChat(store, chatId), null, 2)}\n`;
  if (values.out === undefined || values.out === "-") {
    io.stdout.write(text);
    return EXIT.ok;
  }
  const file = resolve(io.cwd, values.out);
  // It holds what was said, like the transcript: readable by its owner only.
  writeFileSync(file, text, { mode: 0o600 });
  io.stderr.write(`Exported chat ${chatId} to ${file}\n`);
  return EXIT.ok;
}
