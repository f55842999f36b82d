import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";

/** Debian's chromium, as .ci/run installs it; tests skip with a notice when absent. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  process.stderr.write(`\n[cli tests] NOTICE: ${CHROMIUM} not found — skipping the HTML report checks in headless Chromium.\n\n`);
}

export interface RenderedChart {
  kind: string;
  width: number;
  height: number;
  engines: string[];
  /** Requests with a value, per series. */
  points: number[];
  markers: number;
  /** Whether uPlot drew a canvas for it. */
  drawn: boolean;
}

export interface RenderedReport {
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Failed network requests (a self-contained report makes none). */
  requests: string[];
  charts: RenderedChart[];
  title: string;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/** Open the report at a viewport width, recording console errors and any request that leaves the file. */
export async function openReport(browser: Browser, file: string, width: number): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(String(err)));
  page.on("request", (req) => {
    if (!req.url().startsWith("file:") && !req.url().startsWith("data:")) requests.push(req.url());
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  return { page, errors, requests };
}

/** Every chart on the page: its drawn size and what its data holds. */
export function measureCharts(page: Page): Promise<RenderedChart[]> {
  return page.$$eval(".chart[data-chart]", (boxes) =>
    boxes.map((box) => {
      const data = JSON.parse(box.querySelector("script.chart-data")!.textContent!) as {
        series: Array<{ name: string; values: Array<number | null> }>;
        markers: unknown[];
      };
      const canvas = box.querySelector("canvas");
      const rect = (canvas ?? box).getBoundingClientRect();
      return {
        kind: box.getAttribute("data-chart") ?? "",
        width: rect.width,
        height: rect.height,
        engines: data.series.map((s) => s.name),
        points: data.series.map((s) => s.values.filter((v) => v !== null).length),
        markers: data.markers.length,
        drawn: canvas !== null && rect.width > 0,
      };
    }),
  );
}

/** Open an HTML file in headless Chromium at 1200 px and measure its charts. */
export async function renderReport(file: string): Promise<RenderedReport> {
  const browser = await launchChromium();
  try {
    const { page, errors, requests } = await openReport(browser, file, 1200);
    return { errors, requests, charts: await measureCharts(page), title: await page.title() };
  } finally {
    await browser.close();
  }
}
