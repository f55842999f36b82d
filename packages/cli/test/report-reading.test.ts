/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtmlReport } from "../src/replay/render-html.js";
import { hasChromium, launchChromium, openReport } from "./helpers/chromium.js";
import { summaryText, syntheticReport } from "./helpers/synthetic-report.js";

const OUT = mkdtempSync(join(tmpdir(), "ce-report-reading-"));

/** uPlot's x-axis tick values of every chart on the page. */
const xTicks = (page: import("playwright-core").Page) =>
  page.$$eval(".chart[data-chart]", (boxes) => boxes.map((b) => ((b as unknown as { uplot: { axes: Array<{ _splits?: number[] }> } }).uplot.axes[0]!._splits ?? []).slice()));

describe.skipIf(!hasChromium)("the HTML report reads plainly (headless Chromium)", () => {
  let browser: Browser;
  let okFile: string;
  let failedFile: string;
  beforeAll(async () => {
    okFile = join(OUT, "ok.html");
    failedFile = join(OUT, "failed.html");
    writeFileSync(okFile, renderHtmlReport(syntheticReport()));
    writeFileSync(failedFile, renderHtmlReport(syntheticReport({ failing: true })));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const width of [400, 1400]) {
    it(`at ${width} px: a lossless summary opens with the summary itself, above the fold, dated by the recording; the note to the model is folded`, async () => {
      const { page, errors } = await openReport(browser, okFile, width);
      try {
        // The lcm run's first compaction, opened as a marker click or a link does.
        await page.goto(`${pathToFileURL(okFile).href}#compaction-0-1-0`);
        const details = page.locator("#compaction-0-1-0");
        expect(await details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
        const body = details.locator("pre.summary-text").first();
        expect(await body.innerText()).toBe(summaryText("lcm", 1));
        const box = (await body.boundingBox())!;
        const viewport = page.viewportSize()!;
        // On screen (the box is relative to the window): its first lines between the top and the bottom.
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + 40).toBeLessThanOrEqual(viewport.height);
        const note = details.locator("details.model-note");
        expect(await note.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
        expect(await note.locator("pre").isVisible()).toBe(false);
        const text = await details.innerText();
        expect(text.indexOf(summaryText("lcm", 1))).toBeLessThan(text.indexOf("What the model is told"));
        // The recording's times, not the engine's stamp from the replay's clock.
        expect(text).toMatch(/Said 8 May 2023, 13:\d\d–13:\d\d UTC/);
        expect(text).not.toContain("2030");
        await page.screenshot({ path: join(OUT, `lcm-summary-${width}.png`) });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);

    it(`at ${width} px: plain words, a readable generated time, whole request numbers, no legend until hovered`, async () => {
      const { page, errors } = await openReport(browser, failedFile, width);
      try {
        const all = await page.evaluate(() => document.body.innerText);
        for (const word of ["pre_api", "preflight", "post_tool", "over_window"]) expect(all).not.toContain(word);
        expect(all).toContain("over the threshold before a request to the model");
        expect(all).toMatch(/generated 1 January 1970, 00:00 UTC by/);
        expect(all).not.toContain("1970-01-01T00:00:00.000Z");
        for (const ticks of await xTicks(page)) {
          expect(ticks.length).toBeGreaterThan(0);
          for (const t of ticks) expect(Number.isInteger(t), `tick ${t}`).toBe(true);
        }
        const chart = page.locator('.chart[data-chart="context"]').first();
        const legend = chart.locator(".u-legend");
        expect(await legend.evaluate((el) => getComputedStyle(el).visibility)).toBe("hidden");
        await chart.scrollIntoViewIfNeeded();
        const over = (await chart.locator(".u-over").boundingBox())!;
        await page.mouse.move(over.x + over.width / 2, over.y + over.height / 2);
        expect(await legend.evaluate((el) => getComputedStyle(el).visibility)).toBe("visible");
        expect(await legend.innerText()).toMatch(/#\d+/);
        await page.mouse.move(0, 0);
        expect(await legend.evaluate((el) => getComputedStyle(el).visibility)).toBe("hidden");
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);

    it(`at ${width} px: a failed report lists the failing sessions at the top, each a link that unfolds it`, async () => {
      const { page, errors } = await openReport(browser, failedFile, width);
      try {
        const failing = page.locator("section.failing");
        expect(await failing.isVisible()).toBe(true);
        const box = (await failing.boundingBox())!;
        expect(box.y).toBeLessThan(page.viewportSize()!.height);
        expect(await failing.locator("h2").innerText()).toBe("2 of 7 sessions failed their checks");
        const links = failing.locator("a");
        expect(await links.allInnerTexts()).toEqual(["short-2", "short-6"]);
        expect(await failing.innerText()).toContain("request 2 was over the window in short-6");
        // short-6 is the seventh session: folded until its link is followed.
        const target = page.locator("#session-6 details.session-details");
        expect(await target.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
        await links.nth(1).click();
        // The link unfolds it from the page's hashchange handler: wait for it rather than race it on a busy machine.
        await page.waitForFunction(() => (document.querySelector("#session-6 details.session-details") as HTMLDetailsElement | null)?.open === true, null, { timeout: 10_000 });
        expect(await target.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
        expect(await page.locator("#session-6 ul.problems").isVisible()).toBe(true);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(OUT, `failed-${width}.png`) });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);
  }
});
