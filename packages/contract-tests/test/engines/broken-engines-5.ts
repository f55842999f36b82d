// Broken engines for pins (issue 40): the pins block is part of the protected head, so a pass hands
// it back verbatim, once, right after the system prompt.
import type { CompressOptions, ContextEngine, EngineInitContext, Message } from "@context-engine/core";
import type { BrokenEngine } from "./broken-engines.js";
import { ReferenceEngine } from "./reference-engine.js";

/** Takes only the first system message for the system prompt; a second one (the pins block) is treated as an old summary and dropped. */
class DropsSecondSystemMessage extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const [first, second, ...rest] = messages;
    if (first?.role !== "system" || second?.role !== "system") return super.compress(messages, options);
    const trimmed = [first, ...rest];
    const out = await super.compress(trimmed, options);
    return out === trimmed ? messages : out;
  }
}

/** Saves tokens by collapsing whitespace in the system messages it keeps: the pins lose their layout. */
class NormalisesHeadWhitespace extends ReferenceEngine {
  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const out = await super.compress(messages, options);
    if (out === messages) return out;
    return out.map((m) => (m.role === "system" && typeof m.content === "string" ? ({ ...m, content: m.content.replace(/\s+/g, " ").trim() } as Message) : m));
  }
}

const ref = (E: new (ctx: EngineInitContext) => ContextEngine) => (ctx: EngineInitContext) => new E(ctx);
const AIM = "compress > keeps the protected head (system prompt and pins block) intact when pins are present";

export const PIN_BROKEN_ENGINES: BrokenEngine[] = [
  { defect: "drops-pins-block", aimedAt: AIM, create: ref(DropsSecondSystemMessage) },
  { defect: "normalises-pins-whitespace", aimedAt: AIM, create: ref(NormalisesHeadWhitespace) },
];
