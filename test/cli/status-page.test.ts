/// <reference lib="dom" />
/**
 * With a daemon running on the devnet: `pause` is honoured within one slot and `resume` lifts it (a strategy,
 * then a wallet by its name), `status --json` shows it; and the status page, loaded in a real headless
 * Chromium, draws every chart with the points of its series and shows the numbers `status --json` prints.
 * The screenshot is saved as test-artifacts/status-page.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger, type LedgerView, type RunRecord } from '../../src/ledger/ledger.ts';
import type { TradeRecord } from '../../src/model/trade.ts';
import { runInProcess } from '../helpers/in-process.ts';
import { type DaemonProcess, daemonHome, spawnDaemon } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true, uniswapV3: true });
const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
  (path) => path && existsSync(path),
);
const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

const yaml = `
defaults: { confirmations: 1, firstRun: now, valuation: { everySeconds: 3600 } }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: dca, kind: dca, wallet: main, every: 1s, sell: { token: cUSD, amount: "5" }, buy: CELO }
  - { id: tp, kind: limit, wallet: main, every: 1s, sell: { token: CELO, amount: "50" }, buy: cUSD, takeProfit: "0.45" }
  - { id: lp, kind: uniswap-v3-position, wallet: main, every: 1s, valueToken: cUSD, open: { pair: [CELO, cUSD], fee: "0.3%", width: "5%", amounts: { CELO: "100" } } }
`;

let home: ReturnType<typeof daemonHome>;
let daemon: DaemonProcess;

/** What the ledger holds now, read as `status` reads it (the daemon keeps writing). */
async function read<T>(look: (ledger: LedgerView) => Promise<T>): Promise<T> {
  const ledger = await Ledger.openReadOnly(home.ledgerFile);
  try {
    return await look(ledger);
  } finally {
    await ledger.close();
  }
}
const runsOf = (id: string): Promise<RunRecord[]> => read((ledger) => ledger.runs.list({ strategyId: id, limit: 10_000 }));
const tradesOf = (id: string): Promise<TradeRecord[]> => read((ledger) => ledger.trades.all(id));
const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) =>
  waitFor(check, what, timeoutMs, { explain: () => `log: ${daemon.lines.map((line) => line.msg).join(' | ')}`, pollMs: 100 });
// The commands run in the test's process (the daemon is the other process on the ledger), one at a time.
const status = async (...args: string[]) => {
  const printed = await runInProcess(['status', '--json', '--ledger', home.ledgerFile, ...args]);
  expect(printed.code, printed.stderr).toBe(0);
  return JSON.parse(printed.stdout);
};
const cli = (...args: string[]) => runInProcess([...args, '--ledger', home.ledgerFile]);

beforeAll(async () => {
  home = daemonHome(fork, 'status-page');
  daemon = spawnDaemon(home, home.config(yaml), { ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string });
  await daemon.port();
  await until(
    'two DCA buys, the take-profit, and a position opened and looked at twice',
    async () =>
      existsSync(home.ledgerFile) &&
      (await tradesOf('dca')).filter((t) => t.status === 'confirmed').length >= 2 &&
      (await tradesOf('tp')).some((t) => t.status === 'confirmed') &&
      (await tradesOf('lp')).some((t) => t.kind === 'mint' && t.status === 'confirmed') &&
      (await runsOf('lp')).length >= 3,
  );
}, 60_000);

afterAll(async () => {
  daemon?.child.kill('SIGTERM');
  expect(await daemon?.exited).toBe(0);
});

describe('pause and resume with a running daemon', () => {
  it('stops a strategy within one slot, shows why, and resumes it; a wallet by its name likewise', async () => {
    const paused = await cli('pause', 'dca', '--reason', 'checking the price');
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain('paused the strategy dca');
    const at = Date.now();
    // A run that started before the pause may still trade; none that started a slot (1 s) later does.
    const finishedAfter = async (id: string, since: number) =>
      (await runsOf(id)).filter((run) => run.startedAt > since && run.outcome !== null && run.outcome !== undefined);
    await until(
      'a run of dca a slot after the pause, and one of tp',
      async () => (await finishedAfter('dca', at + 1_000)).length > 0 && (await finishedAfter('tp', at + 1_000)).some((run) => run.outcome === 'nothing'),
    );
    expect((await tradesOf('dca')).filter((trade) => trade.createdAt > at + 1_000)).toEqual([]);
    const later = await finishedAfter('dca', at + 1_000);
    expect(later.length).toBeGreaterThanOrEqual(1);
    expect(later.map((run) => run.outcome)).toEqual(later.map(() => 'paused'));
    expect(later[0]?.note).toBe('paused: the strategy dca is paused (checking the price)');
    const shown = await status('--strategy', 'dca');
    expect(shown.strategies[0].paused).toMatchObject({ scope: 'strategy', key: 'dca', reason: 'checking the price' });
    expect((await cli('status', '--strategy', 'dca')).stdout).toContain('PAUSED since');
    // The other strategy runs on.
    expect((await runsOf('tp')).filter((run) => run.startedAt > at + 1_000 && run.outcome === 'nothing').length).toBeGreaterThanOrEqual(1);

    const twice = await cli('pause', 'dca');
    expect(twice.stdout).toContain('already paused');
    const unknown = await cli('pause', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe("routekeeper: pause: no strategy or wallet 'nope' in the ledger; known: dca, lp, tp, main (wallet)");

    const resumed = await cli('resume', 'dca');
    expect(resumed.code, resumed.stderr).toBe(0);
    const resumedAt = Date.now();
    await until('a DCA buy after resume', async () => (await tradesOf('dca')).some((trade) => trade.createdAt > resumedAt && trade.status === 'confirmed'));
    expect((await status('--strategy', 'dca')).strategies[0].paused).toBeNull();

    // The wallet by its name: every strategy of it stops.
    expect((await cli('pause', 'main')).stdout).toContain(`paused the wallet main (${fork.addressBook.accounts[0]?.address.toLowerCase()})`);
    const walletAt = Date.now();
    await until('paused runs of both strategies a slot after the wallet paused', async () =>
      (await Promise.all(['dca', 'tp'].map((id) => finishedAfter(id, walletAt + 1_000)))).every((runs) => runs.some((run) => run.outcome === 'paused')),
    );
    expect((await tradesOf('dca')).filter((trade) => trade.createdAt > walletAt + 1_000)).toEqual([]);
    expect((await runsOf('tp')).filter((run) => run.startedAt > walletAt + 1_000).map((run) => run.outcome)).toContain('paused');
    const walletShown = await status();
    expect(walletShown.wallets[0].paused).toMatchObject({ scope: 'wallet', reason: 'paused by hand (routekeeper pause)' });
    expect(walletShown.strategies.map((s: { paused: { scope: string } | null }) => s.paused?.scope)).toEqual(['wallet', 'wallet', 'wallet']);
    expect((await cli('resume', 'main')).code).toBe(0);
    // Left paused for the page's test, whose numbers must not move while it compares them.
    expect((await cli('pause', 'dca', '--reason', 'frozen for the page')).code).toBe(0);
    expect((await cli('pause', 'lp', '--reason', 'frozen for the page')).code).toBe(0);
    const frozenAt = Date.now();
    await until('a paused run of the position a slot after its pause', async () =>
      (await finishedAfter('lp', frozenAt + 1_000)).some((run) => run.outcome === 'paused'),
    );
  }, 60_000);
});

describe.skipIf(!chromium)('the status page in a real browser', () => {
  it('draws every chart and shows the numbers of status --json', async () => {
    const { chromium: playwright } = await import('playwright-core');
    const port = await daemon.port();
    // Nothing trades any more (the DCA and the position are paused, the take-profit filled once): the numbers hold still. (A pause on
    // purpose: the marker's next prices land before the page and status --json are read; nothing marks their end.)
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const browser = await playwright.launch({ executablePath: chromium, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForFunction(
        () => document.body.dataset.generatedAt !== undefined && document.querySelectorAll('[data-chart] canvas').length >= 4,
        undefined,
        { timeout: 20_000 },
      );
      const report = await status();
      // Every figure on the page is a field of status --json, shown as the page shows it.
      const figures = await page.$$eval('[data-field]', (nodes) =>
        nodes.map((node) => ({
          id: (node as HTMLElement).dataset.strategy as string,
          field: (node as HTMLElement).dataset.field as string,
          text: node.textContent,
        })),
      );
      expect(figures.length).toBeGreaterThanOrEqual(20);
      for (const { id, field, text } of figures) {
        const strategy = report.strategies.find((s: { id: string }) => s.id === id);
        const value = field.split('.').reduce((v: unknown, key) => (v === null || v === undefined ? undefined : (v as Record<string, unknown>)[key]), strategy);
        const expected = value === null || value === undefined ? '—' : /(Percent|vsTrigger)$/.test(field) ? `${value}%` : String(value);
        expect(`${id} ${field}: ${text}`).toBe(`${id} ${field}: ${expected}`);
      }
      const dca = report.strategies.find((s: { id: string }) => s.id === 'dca');
      expect(figures.find((f) => f.id === 'dca' && f.field === 'dca.invested.text')?.text).toBe(dca.dca.invested.text);
      expect(BigInt(dca.dca.invested.raw)).toBe(5n * 10n ** 18n * BigInt(dca.trades.confirmed));

      // Each chart drew its series: the points of /api/strategies/<id>, and ink on the canvas.
      const charts = await page.$$eval('[data-chart]', (nodes) =>
        nodes.map((node) => {
          const canvas = node.querySelector('canvas');
          let inked = 0;
          if (canvas) {
            const pixels = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(0, 0, canvas.width, canvas.height).data;
            for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] as number) > 0) inked++;
          }
          const section = node.closest('[data-strategy-section]') as HTMLElement;
          return {
            id: section.dataset.strategySection as string,
            chart: (node as HTMLElement).dataset.chart as string,
            points: Number((node as HTMLElement).dataset.points),
            inked,
          };
        }),
      );
      const expected: { id: string; chart: string; points: number }[] = [];
      const chartsOf: Record<string, string[]> = { dca: ['value', 'fills', 'gas'], lp: ['value', 'gas'], tp: ['fills', 'gas'] };
      for (const [id, names] of Object.entries(chartsOf)) {
        const detail = await (await fetch(`http://127.0.0.1:${port}/api/strategies/${id}`)).json();
        for (const chart of names) expected.push({ id, chart, points: detail.series[chart].length });
      }
      expect(charts.map(({ id, chart, points }) => ({ id, chart, points }))).toEqual(expected);
      expect(expected.find((c) => c.id === 'dca' && c.chart === 'fills')?.points).toBe(dca.trades.confirmed);
      // The position's chart: its worth against holding its entry, a point per look at it since it opened.
      expect(expected.find((c) => c.id === 'lp' && c.chart === 'value')?.points).toBeGreaterThanOrEqual(2);
      for (const chart of charts) expect(chart.inked, `${chart.id}/${chart.chart} drew nothing`).toBeGreaterThan(500);
      // Every time axis reads at a glance: at most one label per 90 px of its width, each a whole time of day or a
      // date (never a fraction of a second), none twice.
      const axes = await page.$$eval('[data-chart]', (nodes) =>
        nodes.map((node) => ({ width: (node as HTMLElement).clientWidth, labels: ((node as HTMLElement).dataset.timeLabels ?? '').split('|') })),
      );
      expect(axes.length).toBe(charts.length);
      for (const { width, labels } of axes) {
        expect(labels.length).toBeGreaterThan(0);
        expect(labels.length).toBeLessThanOrEqual(Math.ceil(width / 90));
        expect(new Set(labels).size).toBe(labels.length);
        for (const label of labels) expect(label).toMatch(/^(\d{1,2}:\d{2}(:\d{2})? [AP]M|[A-Z][a-z]{2} \d{1,2})$/);
      }
      // The wallets' worth: what has a price, summed, whatever else they hold.
      const worth = await page.$$eval('#wallets tbody tr', (rows) => rows.map((row) => row.children[3]?.textContent ?? ''));
      expect(worth.length).toBeGreaterThan(0);
      for (const cell of worth) expect(cell).toMatch(/^\$[\d,]+(\.\d+)?( \+ \d+ without a price)?$/);
      expect(errors).toEqual([]);
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: `${artifacts}status-page.png`, fullPage: true });
      expect(existsSync(`${artifacts}status-page.png`)).toBe(true);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

if (!chromium) console.warn("status page browser test skipped: no Chromium found (install Debian's chromium, or set CHROMIUM_PATH)");
