import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** Debian's chromium, as .ci/run installs it; tests skip with a notice when absent. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  process.stderr.write(`\n[cli tests] NOTICE: ${CHROMIUM} not found — skipping the HTML report checks in headless Chromium.\n\n`);
}

export interface RenderedReport {
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Failed network requests (a self-contained report makes none). */
  requests: string[];
  charts: Array<{ kind: string; width: number; height: number; engines: string[]; pathLengths: number[]; markers: number }>;
  title: string;
}

/** Open an HTML file in headless Chromium and measure its charts. */
export async function renderReport(file: string): Promise<RenderedReport> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
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
    const charts = await page.$$eval("svg.chart", (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const series = [...svg.querySelectorAll("g.series")];
        return {
          kind: svg.getAttribute("data-chart") ?? "",
          width: box.width,
          height: box.height,
          engines: series.map((g) => g.getAttribute("data-engine") ?? ""),
          pathLengths: series.map((g) => {
            const path = g.querySelector("path.line") as unknown as { getTotalLength(): number } | null;
            return path ? path.getTotalLength() : 0;
          }),
          markers: svg.querySelectorAll("path.marker").length,
        };
      }),
    );
    return { errors, requests, charts, title: await page.title() };
  } finally {
    await browser.close();
  }
}
