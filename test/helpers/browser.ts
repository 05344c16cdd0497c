// What the browser tests share: Chromium beside a stack, a page that records what it should not see
// (console errors, exceptions, 5xx answers, requests to another origin), the check of it, painted
// canvas pixels, and polling an expression in the page.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { CHROMIUM, NO_CHROMIUM } from '../../scripts/chromium.ts';
import { type Stack, type StackOptions, startStack } from './stack.ts';
import { waitUntil } from './wait.ts';

/** A stack (startStack's `options`) and Chromium, both closed when `t` ends; without Chromium, an error. */
export async function browserAndStack(
  t: Test,
  options: StackOptions = {},
): Promise<{ browser: Browser; stack: Stack }> {
  if (!existsSync(CHROMIUM)) throw new Error(NO_CHROMIUM);
  const stack = await startStack(options);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.teardown(async () => {
    await browser.close();
    await stack.stop();
  });
  return { browser, stack };
}

const pageProblems = new WeakMap<Page, string[]>();

/** A page that records console errors, uncaught exceptions and requests to any other origin. */
export async function openPage(browser: Browser, t: Test, baseUrl: string, width = 1400, height = 900): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems: string[] = [];
  const origin = new URL(baseUrl).origin;
  // Chromium logs every 4xx answer to fetch as a console error; those the pages expect and handle
  // (a form's 400, the 401 that asks for a key, a variant's 409 for hourly data) are not errors of
  // the page. Any 5xx is.
  page.on('console', (m) => {
    if (
      m.type() === 'error' &&
      !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())
    ) {
      problems.push(`console: ${m.text()}`);
    }
  });
  page.on('response', (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} from ${r.url()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('data:') && new URL(r.url()).origin !== origin) problems.push(`other origin: ${r.url()}`);
  });
  pageProblems.set(page, problems);
  t.teardown(() => context.close());
  return page;
}

/** At the end of a test: what the page saw that it should not have (but what the test caused). */
export function clean(t: Test, page: Page, caused?: RegExp): void {
  const problems = (pageProblems.get(page) ?? []).filter((p) => !caused?.test(p));
  t.same(problems, [], 'no console error, no exception, no request to another origin');
}

/** Canvas pixels inside an element that are neither transparent nor (near) white. */
export function paintedPixels(page: Page, testid: string, fromX = 0): Promise<number> {
  return page.evaluate(`(() => {
    let n = 0;
    for (const canvas of document.querySelectorAll('[data-testid="${testid}"] canvas')) {
      const x = Math.floor(canvas.width * ${fromX});
      const data = canvas.getContext('2d')?.getImageData(x, 0, canvas.width - x, canvas.height).data;
      if (!data) continue;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 0 && (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235)) n++;
      }
    }
    return n;
  })()`);
}

/** Polls an expression in the page (page.waitForFunction would eval it, which the pages' CSP forbids). */
export async function until(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  await waitUntil(async () => page.evaluate(expression), { timeoutMs, everyMs: 50, what: expression });
}
