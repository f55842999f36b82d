/// <reference lib="dom" />
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtmlReport } from "../src/replay/render-html.js";
import { hasChromium, launchChromium, measureCharts, openReport } from "./helpers/chromium.js";
import { summaryText, syntheticReport } from "./helpers/synthetic-report.js";

/** Screenshots go here; the path is printed so a person can look at them. */
const OUT = mkdtempSync(join(tmpdir(), "ce-report-shots-"));

describe.skipIf(!hasChromium)("the HTML report in headless Chromium", () => {
  let browser: Browser;
  let file: string;
  beforeAll(async () => {
    file = join(OUT, "report.html");
    // A long unbroken session name and source path: the usual cause of sideways scrolling.
    writeFileSync(file, renderHtmlReport(syntheticReport({ longSessionName: true })));
    browser = await launchChromium();
    process.stderr.write(`[cli tests] report screenshots in ${OUT}\n`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const width of [400, 1400]) {
    it(`at ${width} px: no horizontal overflow, both charts drawn to fit, no errors, no network`, async () => {
      const { page, errors, requests } = await openReport(browser, file, width);
      try {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        const charts = await measureCharts(page);
        expect(charts.map((c) => c.kind)).toEqual(["context", "prefix-reuse"]);
        for (const chart of charts) {
          expect(chart.drawn).toBe(true);
          expect(chart.width).toBeLessThanOrEqual(width);
          expect(chart.width).toBeGreaterThan(width * (width < 600 ? 0.7 : 0.5));
          expect(chart.engines).toEqual(["compressor", "lcm"]);
        }
        const shot = join(OUT, `report-${width}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        expect(statSync(shot).size).toBeGreaterThan(10_000);
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);

    it(`at ${width} px: clicking a compaction point opens its summary; hovering shows the values`, async () => {
      const { page, errors } = await openReport(browser, file, width);
      try {
        // Where uPlot drew the first compressor compaction marker, in page pixels.
        const target = await page.evaluate(() => {
          const box = document.querySelector('.chart[data-chart="context"]') as HTMLElement & {
            uplot: { over: HTMLElement; valToPos(v: number, scale: string): number };
          };
          const data = JSON.parse(box.querySelector("script.chart-data")!.textContent!) as { markers: Array<{ x: number; y: number; target: string }> };
          const m = data.markers[0]!;
          const over = box.uplot.over.getBoundingClientRect();
          return { id: m.target, x: over.left + box.uplot.valToPos(m.x, "x"), y: over.top + box.uplot.valToPos(m.y, "y") };
        });
        // Scroll the chart into view (page coordinates change) and recompute the point.
        await page.locator('.chart[data-chart="context"]').scrollIntoViewIfNeeded();
        const point = await page.evaluate((id) => {
          const box = document.querySelector('.chart[data-chart="context"]') as HTMLElement & {
            uplot: { over: HTMLElement; valToPos(v: number, scale: string): number };
          };
          const data = JSON.parse(box.querySelector("script.chart-data")!.textContent!) as { markers: Array<{ x: number; y: number; target: string }> };
          const m = data.markers.find((k) => k.target === id)!;
          const over = box.uplot.over.getBoundingClientRect();
          return { x: over.left + box.uplot.valToPos(m.x, "x"), y: over.top + box.uplot.valToPos(m.y, "y") };
        }, target.id);
        const details = page.locator(`#${target.id}`);
        expect(await details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);

        // Hover first: the legend shows the request number and each engine's tokens there.
        await page.mouse.move(point.x, point.y);
        const legend = await page.locator('.chart[data-chart="context"] .u-legend').innerText();
        expect(legend).toMatch(/#8/); // compressor's first compaction comes before request 8
        expect(legend).toMatch(/compressor\s*[\d,]+/);

        await page.mouse.click(point.x, point.y);
        expect(await details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
        expect(await details.evaluate((el) => el.classList.contains("selected"))).toBe(true);
        const summary = details.locator("pre.summary-text").first();
        expect(await summary.isVisible()).toBe(true);
        expect(await summary.innerText()).toBe(summaryText("compressor", 1));
        expect(await details.locator("summary").innerText()).toContain("1,800 → 400 tokens");
        expect(await details.locator("ol.replaced li").count()).toBe(7);
        // The opened block is on screen and fits it.
        const box = (await summary.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(OUT, `report-${width}-compaction.png`) });
        // A click away from every marker changes nothing.
        const other = await page.locator(".compaction.selected").count();
        expect(other).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);
  }
});
