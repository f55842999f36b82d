/**
 * Telling a refusal or a non-answer from a summary, by meaning rather than by
 * exact wording: the answer is normalised first (typographic quotes and
 * dashes, markdown emphasis and markers, surrounding quotes, spacing, case),
 * then judged by what its opening says. A summary that reports someone being
 * sorry, or something that can't be done, is not a refusal: a refusal opens
 * with the answerer declining, in the first person.
 */

import { isNonAnswerInOtherLanguage, refusesInOtherLanguage } from "./summary-refusal-i18n.js";

const QUOTE_PAIRS: Record<string, string> = { '"': '"', "'": "'", "(": ")", "[": "]", "<": ">" };

/** Plain lower-case text for judging: the answer's wording without its typography and markup. */
export function normalizeForJudging(text: string): string {
  let t = text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u02BC\u0060\u00B4]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB\u300C\u300D]/g, '"')
    .replace(/[\u2010-\u2015\u2212\uFE58\uFE63]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/[\u00A0\u2000-\u200B\u202F\u205F\u3000\uFEFF]/g, " ");
  t = t
    .replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, "$1") // [text](link)
    .replace(/^[ \t]*(?:(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d+[.)][ \t]+)[ \t]*)+/gm, "") // headings, quotes, list markers
    // Emphasis, however (mis)nested: every `*` and `~~`, and `_` that is not inside a word (snake_case stays).
    .replace(/\*+|~~/g, "")
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, "")
    .replace(/\s+/g, " ")
    .trim();
  // A speaker label the model put in front ("Assistant:", "Answer -", "Summary:"), and quotes (or brackets)
  // around the whole answer, possibly nested: "'I can't help'".
  // Also "Summary" in the languages refusals are recognised in (Resumen:, Résumé :, 要約：).
  const label =
    /^(?:(?:assistant|answer|response|reply|summary|ai)\s*[:\-]|(?:resumen|résumé|resume|zusammenfassung|riassunto|resumo|samenvatting|podsumowanie|резюме|итог|підсумок|摘要|总结|總結|要約|まとめ|요약|özet|sammanfattning|sammendrag|resumé|yhteenveto|tóm tắt|ringkasan|ملخص|סיכום|सारांश|περίληψη|rezumat|összefoglaló|shrnutí|respuesta|réponse|antwort|risposta|resposta) ?[:：])\s*/iu;
  const marker = /^(?:#{1,6}|>|[-*+]|\d+[.)])\s+/;
  for (let guard = 0; guard < 6; guard++) {
    const before = t;
    t = t.replace(label, "").replace(marker, "");
    const close = QUOTE_PAIRS[t[0] ?? ""];
    if (close !== undefined && t.length >= 2 && (t.endsWith(close) || t.endsWith(`${close}.`))) t = t.slice(1, t.endsWith(close) ? -1 : -2).trim();
    if (t === before) break;
  }
  return t.toLowerCase();
}

/** First-person declining: "I can't", "I won't", "we are unable", "I must decline", "I'm not going to". */
const DECLINING =
  "(?:i|we)(?: really| simply| unfortunately| honestly| just)? ?(?:(?:'m|am|are|'re) (?:not able|unable|not in a position|not allowed|not permitted|not going)|(?:can ?not|can't|cant|won't|wont|will not|could not|couldn't|shouldn't|should not|must decline|have to decline|need to decline|decline|refuse|'d rather not|would rather not|do not feel comfortable|don't feel comfortable|'m not comfortable|am not comfortable))";
/** What an assistant declines to do: help, comply, summarise, continue, that request. */
const SERVICE =
  "(?:help|assist|comply|fulfil|fulfill|summari[sz]|continue|engage|respond|answer|proceed|create (?:that|this|a summary)|write (?:that|this|a summary)|produce (?:that|this|a summary)|generate (?:that|this|a summary)|do (?:that|this|so|it)|provide (?:a |the |this |that |any |such |an )?(?:summary|help|assistance|that|this|it|information|a response)|share (?:that|this)|(?:with|on|to) (?:that|this|your|the) (?:request|task|content)|with (?:that|this)|that|this)";

const REFUSAL_CORE = new RegExp(
  [
    `\\b${DECLINING}\\b[^.!?]{0,60}?\\b${SERVICE}`,
    // "I'm unable to …" / "I'm not able to …" with any verb, when the sentence is about the request.
    `\\b(?:i|we) ?(?:'m|am|are|'re) (?:not able|unable) to\\b[^.!?]{0,80}\\b(?:request|conversation|content|summary|task|that|this)\\b`,
    "\\bas an ai\\b|\\bas a language model\\b|\\bi'?m (?:just )?an ai\\b",
    "\\b(?:against|violates?|violating|contrary to) (?:my|our|the|openai'?s|anthropic'?s) (?:guidelines|polic(?:y|ies)|usage polic(?:y|ies)|terms|rules|programming|principles)",
    "\\bnot (?:something|a request) (?:i|we) (?:can|am able to|'m able to|will)\\b",
    "\\b(?:i|we) (?:must|have to|need to) (?:respectfully )?decline\\b",
  ].join("|"),
);

/** How a refusal opens: an apology, a regret, "as an AI", or the declining itself. */
const REFUSAL_OPENER = new RegExp(
  `^(?:(?:i'?m|i am|we'?re|we are) (?:so |very |really |truly |terribly )?sorry|sorry|so sorry|my apologies|apologies|(?:i|we) apologi[sz]e|unfortunately|regrettably|(?:i'?m|i am) afraid|as an ai|as a language model|(?:i'?m|i am) (?:just )?an ai|${DECLINING}|(?:i|we) (?:must|have to|need to) (?:respectfully )?decline|(?:i|we) (?:'m|am|are|'re) (?:not able|unable)|no,? (?:i|we)|i'?m not able)\\b`,
);

/** Answers that say nothing: placeholders, requests for input, "nothing to summarise". */
const NON_ANSWER = new RegExp(
  [
    "^(?:n/?a|none|null|nil|nothing|empty|no summary|no content|tbd|todo|-+|\\.+|\\?+|ok(?:ay)?|sure|done)(?:[.!]?$|[.!] )",
    "\\bif you have (?:another|any other|a different) question\\b|\\bhappy to help with (?:something|anything) else\\b",
    "\\bnothing (?:to|i can|that can be|worth|here to) (?:summari[sz]e|report|compact|record)",
    "\\bno (?:conversation|content|messages?|text|turns|information|history|context|transcript|input|data)(?: (?:was|were|has been|have been|is|are))? (?:provided|given|included|available|shared|supplied|present|to summari[sz]e)",
    "\\b(?:please|could you|can you|would you|kindly)(?: please)? (?:provide|share|paste|send|clarify|specify|give me|upload|include)\\b",
    "\\b(?:i|we) (?:need|would need|require|will need) (?:more|the|additional|some|further) (?:information|context|details|conversation|text|content|input)",
    "\\b(?:i|we) (?:don'?t|do not) (?:have|see) (?:any|enough|access to|the) (?:conversation|content|text|information|context|messages|turns|transcript)",
    "\\bwhat would you like\\b|\\bhow can i (?:help|assist)\\b|\\bi'?m not sure what you\\b|\\bit seems (?:like )?(?:you|the conversation|the message) (?:haven'?t|didn'?t|is empty|was empty)",
  ].join("|"),
);

/** A markdown ATX heading line (`## …`). */
const ATX_HEADING = /^[ \t]{0,3}#{1,6}(?:[ \t].*)?$/;
/** The underline of a setext heading, or a rule. */
const UNDERLINE = /^[ \t]{0,3}(?:=+|-{2,}|\*{3,}|_{3,})[ \t]*$/;
/** Characters that print nothing, removed before deciding whether a line says anything. */
const INVISIBLE_CHARS = /[\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u180E\u2800\u3164\uFFA0\uFE00-\uFE0F]/gu;
/** Lines that are only markup: a list marker, a table rule, a fence, a quote mark. */
const MARKUP_ONLY = /^[\s>*_~`|:=+#-]*(?:[-*+]|\d+[.)])?[\s>*_~`|:=+#-]*$/;
/** A label line with nothing after it: `Goal:`, `**Progress:**`, `__Next steps__:`. */
const LABEL_ONLY = /^\s*(?:[-*+]\s+)?(?:[*_]{1,3}[^*_\n]{1,60}(?::[*_]{1,3}|[*_]{1,3}:)|[\p{L}][\p{L}\p{N} /&'-]{0,40}:)\s*$/u;
/** Filler a skeleton puts under its headings instead of content. */
const PLACEHOLDER_LINE =
  /^[\s>*_~`(\[-]*(?:(?:[-*+]|\d+[.)])\s*)?[\s*_~`(\[]*(?:n\/?a|none|nil|null|nothing|empty|tbd|todo|pending|unknown|not (?:specified|applicable|available|provided)|no (?:content|details|information|updates?)|\.{2,}|…|-+|\?+)?[\s.)\]*_~`]*$/i;

/** The answer without its heading lines (ATX and setext): headings frame an answer, they do not say whether it declines. */
export function withoutHeadings(text: string): string {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (ATX_HEADING.test(line) || UNDERLINE.test(line)) continue;
    // A setext heading: a line of text underlined by `===` or `---`.
    if (line.trim() && i + 1 < lines.length && /^[ \t]{0,3}(?:=+|-+)[ \t]*$/.test(lines[i + 1]!)) {
      i++;
      continue;
    }
    kept.push(line);
  }
  return kept.join("\n");
}

/** The lines that say something: no headings, no markup-only lines, no empty labels, no filler ("- none", "N/A", "..."). */
export function contentLines(text: string): string[] {
  return withoutHeadings(text.replace(INVISIBLE_CHARS, ""))
    .split("\n")
    .filter((line) => !MARKUP_ONLY.test(line) && !PLACEHOLDER_LINE.test(line) && !LABEL_ONLY.test(line));
}

/** A list of three items or more: the shape of a summary, which a bare refusal or non-answer does not have. */
function hasSummaryShape(body: string): boolean {
  const items = body.match(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\S/gm)?.length ?? 0;
  return items >= 3;
}

/** The first `n` sentences of normalised text (CJK full stops end a sentence without a space). */
function firstSentences(text: string, n: number): string {
  const parts = text.split(/(?<=[.!?])\s+|(?<=[。！？])/, n);
  return parts.join(" ").slice(0, 500);
}

/**
 * Whether an answer is a refusal or a non-answer rather than a summary: it
 * opens by declining (an apology, "as an AI", "I can't …") and declines to
 * help within its first two sentences (in English or another language), or
 * it is short and only asks for input or says there is nothing to summarise.
 * Headings are ignored (a refusal under `## Summary` is still a refusal); an
 * answer with a list of three items or more is a summary even if it opens
 * apologetically.
 */
export function looksLikeRefusal(text: string): boolean {
  const body = contentLines(text).join("\n");
  if (hasSummaryShape(body)) return false;
  // A refusal written as a heading itself ("### I can't help"), or a bare "N/A", has no body: judge the whole answer then.
  if (judgeOpening(/[\p{L}\p{N}]/u.test(body) ? body : text)) return true;
  // A title line in bold or plain words ("**Summary**", "Resumen") above the refusal.
  const lines = body.trim().split("\n");
  return lines.length > 1 && isTitleLine(lines[0]!) && judgeOpening(lines.slice(1).join("\n"));
}

/** A short line that ends without sentence punctuation: a title, not the start of an answer. */
function isTitleLine(line: string): boolean {
  const plain = line.replace(/[*_~`]/g, "").trim();
  return plain.length > 0 && plain.length <= 60 && !/[.!?。！？,;]$/.test(plain);
}

function judgeOpening(text: string): boolean {
  const plain = normalizeForJudging(text);
  if (!plain) return false;
  const head = firstSentences(plain, 2);
  if (REFUSAL_OPENER.test(head) && REFUSAL_CORE.test(head)) return true;
  if (refusesInOtherLanguage(head)) return true;
  return plain.length <= 300 && (NON_ANSWER.test(plain) || isNonAnswerInOtherLanguage(plain));
}
