import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptSummary, looksLikeRefusal, normalizeForJudging } from "../src/index.js";

/** Refusals and non-answers as models phrase them. */
const REFUSALS = [
  "I'm sorry, but I can't help with that.",
  "I am sorry, but I cannot assist with this request.",
  "Sorry, I can't assist with that.",
  "I can't help with that.",
  "I cannot comply with this request.",
  "I won't be able to summarize this conversation.",
  "Unfortunately, I am unable to provide a summary of this content.",
  "I apologize, but I'm not able to help with that request.",
  "As an AI language model, I cannot summarize private conversations.",
  "I'm afraid I can't do that.",
  "My apologies, but I must decline this request.",
  "I'm not comfortable continuing with this task.",
  "Sorry, that request goes against my guidelines, so I can't continue.",
  "I'm unable to process this request.",
  "I must respectfully decline.",
];
const NON_ANSWERS = [
  "N/A",
  "None.",
  "There is nothing to summarize.",
  "No conversation was provided to summarize.",
  "Please provide the conversation you would like me to summarize.",
  "Could you share the messages you want summarised?",
  "I need more context to write a summary.",
  "I don't have any conversation to work with. What would you like me to do?",
];

/** Ways an answer's typography and markup vary without changing what it says. */
const STYLES: Array<(t: string) => string> = [
  (t) => t,
  (t) => t.replace(/'/g, "\u2019"),
  (t) => t.replace(/'/g, "\u2018").replace(/I\u2018/g, "I\u2019"),
  (t) => t.replace(/, (but )?/, " \u2014 "),
  (t) => t.replace(/, (but )?/, " \u2013 "),
  (t) => t.replace(/, (but )?/, " - "),
  (t) => `**${t}**`,
  (t) => `*${t}*`,
  (t) => `_${t}_`,
  (t) => t.replace(/^(\S+ \S+)/, "**$1**"),
  (t) => `"${t}"`,
  (t) => `\u201C${t}\u201D`,
  (t) => `'${t}'`,
  (t) => t.toUpperCase(),
  (t) => t.toLowerCase(),
  (t) => `> ${t}`,
  (t) => `### ${t}`,
  (t) => `Assistant: ${t}`,
  (t) => `  ${t}\n\n`,
  (t) => t.replace(/ /g, "\u00A0"),
  (t) => `${t} If you have another question, I'd be happy to help with something else.`,
];

/** Real summaries whose content mentions being sorry, or something that can't or won't be done. */
const GENUINE = [
  "The user apologised (\"sorry, I can't share the prod logs\"), so we reproduced the bug with staging logs and fixed src/api/retry.ts.",
  "Goal: migrate the billing job. The old cron can't run on ARM, so it moved to a container; the user said sorry for the late spec.",
  "Progress: tests pass. Blocker: the API cannot accept null ids, and the vendor won't change it; a guard was added in lib/ids.ts.",
  "We can't deploy on Fridays (team rule). The release is scheduled for Monday; the changelog is drafted.",
  "Sorry-state handling: the UI shows a 'Sorry, something went wrong' banner when fetch fails; the user wants it replaced by a retry button.",
  "## Goal\nFix the login flow.\n## Progress\n- I'm sorry-proofing error messages: the user can't see stack traces anymore.\n- Added tests.",
  "The assistant explained it cannot access the internet, so the user pasted the docs; the parser now handles tables.",
  "Unfortunately the nightly build failed twice (OOM); the memory limit was raised to 4 GB and the build passes.",
  "User asked to help with the refund script; the script can't handle partial refunds yet, which is the next step.",
];

describe("summary acceptance: refusals and non-answers by meaning", () => {
  it("normalises typography, markup, surrounding quotes and case", () => {
    expect(normalizeForJudging("\u201C**I\u2019m sorry** \u2014 I can\u2019t help.\u201D")).toBe("i'm sorry - i can't help.");
    expect(normalizeForJudging("> ### _Sorry_, no.")).toBe("sorry, no.");
    expect(normalizeForJudging("Assistant: 'N/A'")).toBe("n/a");
  });

  it("rejects every refusal and non-answer in every style (generated combinations)", () => {
    const failures: string[] = [];
    for (const base of [...REFUSALS, ...NON_ANSWERS]) {
      for (const style of STYLES) {
        const text = style(base);
        if (!looksLikeRefusal(text)) failures.push(text);
      }
    }
    expect(failures.map((f) => JSON.stringify(f)).join("\n")).toBe("");
    fc.assert(
      fc.property(fc.constantFrom(...REFUSALS, ...NON_ANSWERS), fc.array(fc.constantFrom(...STYLES), { minLength: 1, maxLength: 3 }), (base, styles) => {
        const text = styles.reduce((t, s) => s(t), base);
        expect(looksLikeRefusal(text), JSON.stringify(text)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("rejects them through acceptSummary as refusals, so engines fall back", () => {
    for (const base of REFUSALS) {
      const verdict = acceptSummary({ content: STYLES[1]!(base), source: "user: fix the build\nassistant: done", maxTokens: 500 });
      expect(verdict.ok ? "accepted" : verdict.reason, base).toBe("refusal");
    }
  });

  it("keeps genuine summaries that mention being sorry or what can't be done, in every style", () => {
    for (const text of GENUINE) {
      for (const style of STYLES.slice(0, 16)) {
        expect(looksLikeRefusal(style(text)), style(text)).toBe(false);
      }
    }
  });

  it("keeps generated summaries with apologies and negations anywhere but a first-person opening", () => {
    const clause = fc.constantFrom(
      "the user said sorry for the noise",
      "the service can't reach the cache",
      "the migration won't run without a lock",
      "\"I can't help with that\" was the vendor's reply",
      "the model apologised and retried",
      "we couldn't reproduce it locally",
    );
    const fact = fc.constantFrom("src/app.ts was refactored", "tests pass", "the deploy is scheduled", "the config moved to config.yaml");
    fc.assert(
      fc.property(fact, fc.array(clause, { minLength: 1, maxLength: 3 }), fact, (first, middle, last) => {
        const text = `${first[0]!.toUpperCase()}${first.slice(1)}; ${middle.join("; ")}. Next: ${last}.`;
        expect(looksLikeRefusal(text), text).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
