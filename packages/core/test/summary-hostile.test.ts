import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptSummary, classifyFinishReason, finishReasonOf, isContentless, looksLikeRefusal } from "../src/index.js";

/** Generated answers that are not summaries: refusals in other languages or under headings, cut-off answers, invented identifiers, empty skeletons. */

const SOURCE = "user: please fix the login bug in the auth module\nassistant: I changed the handler and the tests pass now";
const judge = (content: unknown, finishReason?: string, source = SOURCE) => {
  const v = acceptSummary({ content, finishReason, source, maxTokens: 2_000 });
  return v.ok ? "accepted" : v.reason;
};

/** Per language: apologies, then first-person declining sentences (as models write them). */
const REFUSALS: Record<string, { sorry: string[]; decline: string[] }> = {
  es: { sorry: ["Lo siento", "Lo lamento", "Disculpa", "Lamentablemente"], decline: ["no puedo ayudar con eso", "no puedo resumir esta conversación", "no me es posible completar esta solicitud"] },
  pt: { sorry: ["Desculpe", "Sinto muito", "Infelizmente"], decline: ["não posso ajudar com isso", "não consigo resumir esta conversa"] },
  fr: { sorry: ["Je suis désolé", "Désolée", "Malheureusement", "Je m'excuse"], decline: ["je ne peux pas résumer cette conversation", "je ne suis pas en mesure de vous aider"] },
  de: { sorry: ["Es tut mir leid", "Entschuldigung", "Leider"], decline: ["ich kann diese Unterhaltung nicht zusammenfassen", "kann ich Ihnen dabei nicht helfen", "ich bin nicht in der Lage, das zu tun"] },
  it: { sorry: ["Mi dispiace", "Purtroppo", "Spiacente"], decline: ["non posso aiutarti con questa richiesta", "non sono in grado di riassumere"] },
  nl: { sorry: ["Het spijt me", "Helaas"], decline: ["ik kan je hier niet mee helpen", "kan ik dit gesprek niet samenvatten"] },
  pl: { sorry: ["Przepraszam", "Niestety"], decline: ["nie mogę pomóc w tej sprawie", "nie jestem w stanie tego podsumować"] },
  ru: { sorry: ["Извините", "К сожалению", "Простите"], decline: ["я не могу помочь с этим", "не могу выполнить эту просьбу"] },
  uk: { sorry: ["Вибачте", "На жаль"], decline: ["я не можу допомогти з цим"] },
  tr: { sorry: ["Üzgünüm", "Maalesef"], decline: ["bu konuda yardımcı olamam", "bu konuşmayı özetleyemem"] },
  zh: { sorry: ["抱歉", "很抱歉", "对不起"], decline: ["我无法帮助总结这段对话", "我不能完成这个请求"] },
  ja: { sorry: ["申し訳ありませんが", "すみませんが", "残念ながら"], decline: ["この会話を要約することはできません", "そのご要望にはお応えできかねます"] },
  ko: { sorry: ["죄송합니다만", "죄송하지만"], decline: ["이 요청은 도와드릴 수 없습니다", "요약할 수 없습니다"] },
  ar: { sorry: ["عذرًا", "للأسف", "آسف"], decline: ["لا أستطيع المساعدة في ذلك", "لا يمكنني تلخيص هذه المحادثة"] },
  hi: { sorry: ["माफ़ कीजिए", "मुझे खेद है"], decline: ["मैं इसमें मदद नहीं कर सकता"] },
  vi: { sorry: ["Xin lỗi", "Rất tiếc"], decline: ["tôi không thể giúp với yêu cầu này"] },
  id: { sorry: ["Maaf", "Sayangnya"], decline: ["saya tidak dapat membantu dengan itu"] },
  sv: { sorry: ["Jag är ledsen", "Tyvärr"], decline: ["jag kan inte hjälpa till med det"] },
  el: { sorry: ["Λυπάμαι", "Δυστυχώς"], decline: ["δεν μπορώ να βοηθήσω με αυτό"] },
};
const CJK = new Set(["zh", "ja"]);

const refusal = fc.constantFrom(...Object.keys(REFUSALS)).chain((lang) =>
  fc.tuple(fc.constant(lang), fc.constantFrom(...REFUSALS[lang]!.sorry), fc.constantFrom(...REFUSALS[lang]!.decline)).map(([l, sorry, decline]) =>
    CJK.has(l) ? `${sorry}，${decline}。` : `${sorry}, ${decline}.`,
  ),
);
const heading = fc.constantFrom(
  "", "# Summary\n\n", "## Resumen\n", "### Zusammenfassung\n\n", "## 要約\n", "Summary\n=======\n\n", "## Goal\n\n## Progress\n\n",
  "**Summary**\n\n", "Résumé :\n", "Resumen: ", "__Zusammenfassung__\n", "Summary\n",
);
const wrap = fc.constantFrom<(t: string) => string>((t) => t, (t) => `**${t}**`, (t) => `> ${t}`, (t) => `"${t}"`, (t) => t.toUpperCase(), (t) => `${t}\n\n`);

describe("refusals in other languages and after headings", () => {
  it("are rejected as refusals, generated across languages, headings and styles", () => {
    fc.assert(
      fc.property(heading, refusal, wrap, (h, r, w) => {
        const text = h + w(r);
        expect(looksLikeRefusal(text), text).toBe(true);
        expect(judge(text), text).toBe("refusal");
      }),
      { numRuns: 600 },
    );
  });

  it("English refusals under a heading are refusals too", () => {
    fc.assert(
      fc.property(heading, fc.constantFrom("I'm sorry, but I can't help with that.", "I cannot comply with this request.", "Sorry, I can't assist with that."), (h, r) => {
        expect(judge(h + r)).toBe("refusal");
      }),
    );
  });

  it("genuine summaries in those languages that report an apology are kept", () => {
    const genuine = [
      "El usuario dijo \"lo siento, no puedo compartir los registros\"; se reprodujo el error con staging y se arregló el módulo de auth.",
      "Der Nutzer entschuldigte sich für die Verspätung. Die Tests laufen jetzt, der Login-Fehler ist behoben.",
      "L'utilisateur a dit qu'il ne peut pas partager les journaux ; le bug de connexion est corrigé et les tests passent.",
      "用户说抱歉，日志无法共享；登录错误已修复，测试通过。",
      "ユーザーはログを共有できないと言いました。ログインのバグは修正され、テストは通りました。",
      "## Objetivo\nArreglar el login.\n## Progreso\nLos tests pasan; el usuario pidió disculpas por el retraso.",
    ];
    for (const text of genuine) expect(looksLikeRefusal(text), text).toBe(false);
  });
});

describe("answers cut at the output limit, in every provider's spelling", () => {
  const truncated = ["length", "max_tokens", "max_output_tokens", "incomplete", "model_length", "model_context_window_exceeded", "max_completion_tokens", "token_limit", "MAX_TOKENS"];
  const filtered = ["content_filter", "SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "refusal"];
  const normal = ["stop", "STOP", "end_turn", "stop_sequence", "tool_calls", "tool_use", "FINISH_REASON_UNSPECIFIED", "eos", "complete", "completed", "other"];
  const spelling = fc.constantFrom<(s: string) => string>(
    (s) => s,
    (s) => s.toUpperCase(),
    (s) => s.toLowerCase(),
    (s) => s.replace(/_/g, "-"),
    (s) => s.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    (s) => ` ${s} `,
    (s) => `FINISH_REASON_${s.toUpperCase()}`,
  );

  it("truncated and filtered reasons reject, normal ones do not", () => {
    fc.assert(
      fc.property(fc.constantFrom(...truncated), spelling, (r, sp) => {
        expect(classifyFinishReason(sp(r)), sp(r)).toBe("truncated");
        expect(judge("The login bug was fixed in the auth module.", sp(r))).toBe("truncated");
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...filtered), spelling, (r, sp) => {
        expect(classifyFinishReason(sp(r)), sp(r)).toBe("filtered");
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...normal), spelling, (r, sp) => {
        expect(classifyFinishReason(sp(r)), sp(r)).toBe("other");
        expect(judge("The login bug was fixed in the auth module.", sp(r))).toBe("accepted");
      }),
    );
  });

  it("finds the finish reason in every response shape", () => {
    expect(finishReasonOf({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } })).toBe("max_output_tokens");
    expect(finishReasonOf({ status: "incomplete" })).toBe("incomplete");
    expect(finishReasonOf({ stop_reason: "max_tokens" })).toBe("max_tokens");
    expect(finishReasonOf({ finishReason: { unified: "length", raw: "MAX_TOKENS" } })).toBe("length");
    expect(finishReasonOf({ choices: [{ finish_reason: "length" }] })).toBe("length");
    expect(finishReasonOf({ done_reason: "length" })).toBe("length");
    expect(finishReasonOf({ finishReason: "stop" })).toBe("stop");
  });
});

const seg = fc.stringMatching(/^[a-z]{3,8}$/);
const Seg = seg.map((s) => s[0]!.toUpperCase() + s.slice(1));
const byte = fc.integer({ min: 1, max: 254 });
/** Identifiers of every kind the check covers, each generated. */
const identifier = fc.oneof(
  fc.tuple(seg, seg, fc.constantFrom("ts", "py", "rs", "go", "json", "yaml")).map(([a, b, e]) => `src/${a}/${b}.${e}`),
  fc.tuple(seg, seg).map(([a, b]) => `C:\\Users\\${a}\\${b}.txt`),
  fc.tuple(Seg, Seg, fc.option(Seg, { nil: "" })).map(([a, b, c]) => a + b + c),
  fc.tuple(seg, Seg, fc.option(Seg, { nil: "" })).map(([a, b, c]) => a + b + c),
  fc.tuple(seg, seg).map(([a, b]) => `${a.toUpperCase()}_${b.toUpperCase()}`),
  fc.tuple(seg, seg).map(([a, b]) => `${a}_${b}`),
  fc.tuple(byte, byte, byte, byte).map((p) => p.join(".")),
  fc.tuple(fc.nat(40), fc.nat(40), fc.nat(99)).map(([a, b, c]) => `${a}.${b}.${c}`),
  fc.tuple(fc.nat(40), fc.nat(40)).map(([a, b]) => `v${a}.${b}`),
  fc.tuple(seg, seg, fc.constantFrom("com", "io", "dev")).map(([a, b, t]) => `${a}@${b}.${t}`),
  fc.integer({ min: 100, max: 999_999 }).map(String),
);

describe("summaries that invent identifiers", () => {
  it("are rejected when an identifier appears nowhere in the sources, and accepted when it does", () => {
    fc.assert(
      fc.property(fc.uniqueArray(identifier, { minLength: 1, maxLength: 3, selector: (s) => s.toLowerCase() }), (ids) => {
        const source = SOURCE;
        fc.pre(ids.every((id) => !source.toLowerCase().includes(id.toLowerCase())));
        const summary = `The login bug was fixed; the change touched ${ids.join(" and ")}. Tests pass.`;
        expect(judge(summary, undefined, source), summary).toBe("invented");
        expect(judge(summary, undefined, `${source}\nassistant: see ${ids.join(", ")}`), summary).toBe("accepted");
      }),
      { numRuns: 400 },
    );
  });
});

describe("answers without content", () => {
  const invisible = fc.constantFrom("\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD", "\u180E", "\u2061", "\u034F", "\u3164", "\u2800", "\u200E", "\u200F", "\u202A", "\u202C", " ", "\n", "\t", "\u00A0", "\uFE0F");
  it("only zero-width and invisible characters are empty", () => {
    fc.assert(
      fc.property(fc.array(invisible, { minLength: 1, maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(isContentless(text)).toBe(true);
        expect(["empty"]).toContain(judge(text));
      }),
    );
  });

  it("a skeleton of headings over empty or filler sections is empty; one real line makes it a summary", () => {
    const title = fc.constantFrom("Goal", "Progress", "Next Steps", "Open Questions", "Key Decisions", "Current State", "Objetivo", "要約");
    const body = fc.constantFrom("", "\n", "- \n", "- none\n", "- N/A\n", "_None_\n", "TBD\n", "...\n", "---\n", "*(none)*\n", "\u200B\n", "1. \n", "> \n");
    const level = fc.constantFrom("#", "##", "###", "####");
    fc.assert(
      fc.property(fc.array(fc.tuple(level, title, body), { minLength: 1, maxLength: 6 }), (sections) => {
        const text = sections.map(([l, t, b]) => `${l} ${t}\n${b}`).join("\n");
        expect(judge(text), text).toBe("empty");
        const real = `${text}\n## Progress\n- The login bug in the auth module was fixed and the tests pass.\n`;
        expect(judge(real), real).toBe("accepted");
      }),
    );
  });
});
