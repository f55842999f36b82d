import type { RestoreResult } from "@context-engine/host";
import { formatInt } from "../format/numbers.js";
import type { ChatContext } from "./commands.js";
import { preview } from "./message-text.js";

/** `/undo` and `/restore <id>`: put what a compaction removed back, or say by how much it does not fit. */
export async function restoreCommand(ctx: ChatContext, name: "/undo" | "/restore", arg: string): Promise<string> {
  const id = name === "/restore" ? (ledgerId(arg) ?? (arg.trim() || null)) : null;
  if (name === "/restore" && !id) return "usage: /restore <id>   (a compaction id such as c2, or its number, from /compactions)";
  const result = id === null ? await ctx.session.undo() : await ctx.session.restore(id);
  return restoreText(name, result);
}

/** `c2`, `#2` or `2` → `c2`. */
function ledgerId(arg: string): string | null {
  const m = /^(?:c|#)?(\d+)$/i.exec(arg.trim());
  return m ? `c${Number(m[1])}` : null;
}

function restoreText(name: string, r: RestoreResult): string {
  switch (r.status) {
    case "restored": {
      const e = r.entry;
      const which = e.compactions.length > 1 ? `${e.compactions.at(-1)} (and ${e.compactions.slice(0, -1).join(", ")}, which covered its summary)` : e.compactions[0];
      return `Restored ${which}: ${e.messagesBack} message${e.messagesBack === 1 ? "" : "s"} back in the context, ~${formatInt(e.tokensBefore)} → ~${formatInt(e.tokensAfter)} tokens (${e.id} in /compactions).`;
    }
    case "does_not_fit":
      return (
        `✖ ${name}: the ${r.messagesBack} message${r.messagesBack === 1 ? "" : "s"} of ${r.compactions.join(" + ")} do not fit the window: ` +
        `~${formatInt(r.tokensNeeded)} tokens needed, ${formatInt(r.budget)} available, over by ${formatInt(r.overBy)}. Nothing was changed.`
      );
    case "nothing_to_undo":
      return "Nothing to undo: no compaction in this session is still applied.";
    case "already_restored":
      return `${r.id} is already back (restore ${r.by}).`;
    case "unknown_id":
      return `✖ ${name}: no compaction ${r.id}${r.known.length ? `; there are ${r.known.join(", ")}` : "; none yet"}.`;
    case "invalid":
      return `✖ ${name}: ${r.reason}. Nothing was changed.`;
  }
}

/** `/pin <text>` or `/pin #<n>` (a message as /context numbers it). */
export async function pinCommand(ctx: ChatContext, arg: string): Promise<string> {
  const text = arg.trim();
  if (!text) return "usage: /pin <text>  or  /pin #<n>  (message n as /context numbers it)";
  const ref = /^#(\d+)$/.exec(text);
  const result = await ctx.session.pin(ref ? { index: Number(ref[1]) - 1 } : text);
  if (result.status === "invalid") return `✖ ${result.reason.replace(/@(\d+)/g, (_, n: string) => `#${Number(n) + 1}`)}`;
  if (result.status === "refused") return `✖ /pin: ${result.reason}.`;
  const cap = result.cap === null ? "" : ` of the ${formatInt(result.cap)}-token cap`;
  return `Pinned ${result.pin.id} (~${formatInt(result.pin.tokens)} tokens; the pins block now takes ~${formatInt(result.blockTokens)}${cap}). It is sent verbatim in every request until /unpin ${result.pin.id}.`;
}

export async function unpinCommand(ctx: ChatContext, arg: string): Promise<string> {
  const id = arg.trim();
  if (!id) return "usage: /unpin <id>   (from /pins)";
  const result = await ctx.session.unpin(/^\d+$/.test(id) ? `p${id}` : id);
  if (result.status === "unknown_id") return `✖ /unpin: no pin ${result.id}${result.known.length ? `; there are ${result.known.join(", ")}` : "; none pinned"}.`;
  return `Unpinned ${result.pin.id}.`;
}

export function pinsView(ctx: ChatContext): string {
  const pins = ctx.session.pins();
  if (pins.length === 0) return "No pins. /pin <text> keeps text verbatim in every request.";
  const total = pins.reduce((n, p) => n + p.tokens, 0);
  const lines = pins.map((p) => `${p.id}  ~${formatInt(p.tokens)} tokens  ${preview({ role: "user", content: p.text }, Math.max(20, ctx.width() - 24))}`);
  return [...lines, `${pins.length} pin${pins.length === 1 ? "" : "s"}, ~${formatInt(total)} tokens in every request.`].join("\n");
}
