// The status page: reads /api/status (the same report as `routekeeper status --json`) and, per strategy,
// /api/strategies/<id> (chart series and trades), and redraws every 5 seconds. No build step: plain JavaScript
// and uPlot. A token given as #token=<ROUTEKEEPER_STATUS_TOKEN> in the address is sent as a bearer token (the
// part after # never leaves the browser).

const refreshMs = 5000;
const token = new URLSearchParams(location.hash.slice(1)).get('token');
const charts = new Map();
const colors = ['#2f6fde', '#e07b00', '#16794c', '#b42318', '#7a4cc2', '#0f8b8d'];

async function getJson(path) {
  const response = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {}, cache: 'no-store' });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${(await response.json().catch(() => ({}))).error ?? ''}`);
  return response.json();
}

/** The value at a dotted path ("dca.pnl.text") of an object, or undefined. */
function at(object, path) {
  return path.split('.').reduce((value, key) => (value === undefined || value === null ? undefined : value[key]), object);
}

/** How a figure is shown: text as given, shares with a % sign, nothing known as a dash. */
function shown(value, path) {
  if (value === undefined || value === null) return '—';
  if (/(Percent|vsTrigger)$/.test(path)) return `${value}%`;
  return String(value);
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** A figure bound to a field of the strategy's status: `data-field` lets anyone check it against the JSON. */
function figure(strategy, label, path) {
  const value = at(strategy, path);
  const text = shown(value, path);
  const tone = typeof value === 'string' && /^-/.test(value) ? 'negative' : '';
  return element('div', {}, element('dt', {}, label), element('dd', { 'data-strategy': strategy.id, 'data-field': path, class: tone }, text));
}

/** The latest order worked in slices over time: how far it got, and at what price against the reference. */
const orderFigures = [
  ['order slices', 'order.slices'],
  ['order sold', 'order.sold.text'],
  ['order bought', 'order.bought.text'],
  ['order average price', 'order.averagePrice.text'],
  ['order against the reference (bps)', 'order.againstReferenceBps'],
  ['one route at the start would have bought', 'order.oneRouteAtStart.text'],
  ['splitting saved against one route (bps)', 'order.savedBps'],
];

const figuresByKind = {
  dca: [
    ['invested', 'dca.invested.text'],
    ['received', 'dca.received.text'],
    ['average price paid', 'dca.averagePrice.text'],
    ['price now', 'dca.currentPrice.text'],
    ['worth now', 'dca.value.text'],
    ['profit / loss', 'dca.pnl.text'],
    ['profit / loss %', 'dca.pnlPercent'],
    ['lump sum would be worth', 'dca.lumpSum.value.text'],
    ['against the lump sum', 'dca.vsLumpSum.text'],
  ],
  rebalance: [
    ['worth now', 'rebalance.value.text'],
    ['holding would be worth', 'rebalance.hold.text'],
    ['against holding', 'rebalance.vsHold.text'],
    ['against holding %', 'rebalance.vsHoldPercent'],
    ['turnover', 'rebalance.turnover.text'],
    ['rebalancing trades', 'rebalance.trades'],
  ],
  limit: [
    ['take-profit at', 'limit.takeProfit'],
    ['stop-loss at', 'limit.stopLoss'],
    ['price now', 'limit.currentPrice.text'],
    ['sold', 'limit.sold.text'],
    ['received', 'limit.received.text'],
    ['last fill price', 'limit.fills.0.price.text'],
    ['last fill against its trigger', 'limit.fills.0.vsTrigger'],
  ],
  'uniswap-v3-position': [
    ['position', 'position.positionId'],
    ['fees collected', 'position.collected.token0.text'],
    ['', 'position.collected.token1.text'],
    ['worth when collected', 'position.collectedValue.text'],
    ['compounds', 'position.compounds'],
    ['fees after gas', 'position.realisedYield.text'],
    ['time in range %', 'position.timeInRange.percent'],
    ['worth now', 'position.againstHolding.position.text'],
    ['holding instead', 'position.againstHolding.holding.text'],
    ['against holding', 'position.againstHolding.difference.text'],
    ['worth at entry', 'position.earned.entry.text'],
    ['profit after gas', 'position.earned.profit.text'],
    ['fees earned', 'position.earned.fees.text'],
    ['divergence', 'position.earned.divergence.text'],
    ['fees APR %', 'position.earned.apr'],
    ['days since entry', 'position.earned.days'],
    ['re-ranges', 'position.reRanges'],
    ['removals', 'position.removed.count'],
  ],
  compound: [
    ['compounds', 'compound.compounds'],
    ['rewards claimed', 'compound.claimed.text'],
    ['worth when claimed', 'compound.claimedValue.text'],
    ['position added', 'compound.lpAdded.text'],
    ['yield after gas', 'compound.realisedYield.text'],
  ],
};

const commonFigures = [
  ['trades filled', 'trades.confirmed'],
  ['refused', 'trades.refused'],
  ['failed', 'trades.failed'],
  ['gas', 'gas.native.text'],
  ['gas in value', 'gas.value.text'],
];

function headline(strategy) {
  const { dca, rebalance, limit, compound, position } = strategy;
  if (dca) return dca.pnl ? `${dca.pnl.text}${dca.pnlPercent === null ? '' : ` (${dca.pnlPercent}%)`}` : '—';
  if (rebalance) return rebalance.vsHold ? `${rebalance.vsHold.text} against holding` : '—';
  if (limit) return limit.fills.length ? `filled at ${limit.fills[0].price?.text ?? '?'}` : 'not filled';
  if (compound) return compound.realisedYield ? `${compound.realisedYield.text} after gas` : '—';
  if (position) return position.realisedYield ? `fees ${position.realisedYield.text} after gas` : '—';
  return '';
}

function stateOf(item) {
  return item.paused
    ? element('span', { class: 'paused', title: item.paused.reason }, `paused: ${item.paused.reason}`)
    : item.inStrategyFile === false
      ? 'retired'
      : 'active';
}

function renderOverview(report) {
  const body = document.querySelector('#overview tbody');
  body.replaceChildren(
    ...report.strategies.map((strategy) =>
      element(
        'tr',
        { 'data-strategy-row': strategy.id },
        element('td', {}, element('a', { href: `#strategy-${strategy.id}` }, strategy.id)),
        element('td', {}, strategy.kind),
        element('td', {}, strategy.wallet.name),
        element('td', {}, stateOf(strategy)),
        element('td', {}, headline(strategy)),
        element('td', {}, strategy.gas.native.text),
        element('td', {}, strategy.lastRun ? `${strategy.lastRun.outcome} ${new Date(strategy.lastRun.startedAt).toLocaleTimeString()}` : '—'),
        element('td', {}, strategy.nextRun ? new Date(strategy.nextRun).toLocaleString() : '—'),
      ),
    ),
  );
  document
    .querySelector('#wallets tbody')
    .replaceChildren(
      ...report.wallets.map((wallet) =>
        element(
          'tr',
          {},
          element('td', {}, `${wallet.name} `, element('code', {}, wallet.address)),
          element('td', {}, stateOf(wallet)),
          element('td', {}, wallet.holdings.map((holding) => holding.amount.text).join(', ') || '—'),
          element(
            'td',
            {},
            wallet.valueUsd === null
              ? '—'
              : `$${Number(wallet.valueUsd).toLocaleString('en-US', { maximumFractionDigits: 2 })}${wallet.unpriced > 0 ? ` + ${wallet.unpriced} without a price` : ''}`,
          ),
          element('td', {}, wallet.trades),
          element('td', {}, wallet.gas.text),
        ),
      ),
    );
}

/** The charts a strategy of this kind has: name, title, and the series of its points to draw. */
function chartsOf(strategy, series) {
  const unit = strategy.valueToken.symbol;
  const list = [];
  if (strategy.kind === 'dca')
    list.push({
      name: 'value',
      title: `Worth and invested (${unit})`,
      points: series.value,
      lines: [
        ['value', 'worth'],
        ['invested', 'invested'],
      ],
    });
  if (strategy.kind === 'rebalance')
    list.push({
      name: 'value',
      title: `Portfolio against holding the start (${unit})`,
      points: series.value,
      lines: [
        ['value', 'portfolio'],
        ['hold', 'holding'],
      ],
    });
  if (strategy.kind !== 'compound' && strategy.kind !== 'uniswap-v3-position') {
    const assets = [...new Set(series.fills.map((fill) => fill.asset))];
    const points = series.fills.map((fill) => {
      const point = { t: fill.t };
      for (const asset of assets) {
        point[`paid ${asset}`] = fill.asset === asset ? fill.paid : null;
        point[`reference ${asset}`] = fill.asset === asset ? fill.reference : null;
      }
      return point;
    });
    const lines = assets.flatMap((asset) => [
      [`paid ${asset}`, `paid for ${asset}`],
      [`reference ${asset}`, `reference for ${asset}`],
    ]);
    list.push({ name: 'fills', title: `Price paid per trade against the reference (${unit} per asset)`, points, lines });
  }
  if (strategy.kind === 'uniswap-v3-position')
    list.push({
      name: 'value',
      title: `Position against holding its entry (${unit})`,
      points: series.value,
      lines: [
        ['value', 'position'],
        ['hold', 'holding'],
      ],
    });
  if (strategy.kind === 'compound')
    list.push({ name: 'rewards', title: `Rewards compounded (${unit} when claimed)`, points: series.rewards, lines: [['value', 'claimed']] });
  list.push({ name: 'gas', title: `Gas spent (${strategy.gas.native.symbol})`, points: series.gas, lines: [['native', 'gas']] });
  return list;
}

/** A chart number with 5 significant digits and grouping: 258,000 and 0.00058306 both readable. */
function number(value) {
  return value.toLocaleString('en-US', { maximumSignificantDigits: 5 });
}

/**
 * The time axis spans the points, at least two minutes (one point alone, or two a second apart, get the time around
 * them rather than a scale of years or of milliseconds).
 */
function xRange(xs) {
  const [first, last] = [xs[0], xs[xs.length - 1]];
  const short = Math.max(0, 120 - (last - first)) / 2;
  return [first - short, last + short];
}

/** Tick steps in whole seconds and up: never a fraction of a second. */
const timeSteps = [1, 5, 10, 15, 30, 60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 2592000, 31536000];

/**
 * A tick's label, as short as its step allows: the time of day within a day, the date beyond. The labels drawn are
 * kept on the chart's element (`data-time-labels`), for whoever reads the page.
 */
function timeLabels(u, splits, _axis, _space, step) {
  const labels = splits.map((seconds) => {
    const at = new Date(seconds * 1000);
    if (step >= 86400) return at.toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
    return at.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', ...(step < 60 && { second: '2-digit' }) });
  });
  const box = u.root.parentElement;
  if (box) box.dataset.timeLabels = labels.join('|');
  return labels;
}

function drawChart(container, key, chart) {
  const data = [
    chart.points.map((point) => point.t / 1000),
    ...chart.lines.map(([field]) => chart.points.map((point) => (point[field] === null || point[field] === undefined ? null : Number(point[field])))),
  ];
  container.dataset.points = String(chart.points.length);
  container.dataset.series = String(chart.lines.length);
  const existing = charts.get(key);
  const shape = chart.lines.map(([field]) => field).join('|');
  if (existing && existing.shape === shape) {
    existing.plot.setData(data);
    return;
  }
  existing?.plot.destroy();
  const plot = new uPlot(
    {
      width: Math.max(320, container.clientWidth || 520),
      height: 220,
      series: [
        {},
        ...chart.lines.map(([, label], i) => ({
          label,
          stroke: colors[i % colors.length],
          width: 2,
          spanGaps: true,
          points: { show: true, size: 6 },
          value: (_u, v) => (v === null ? '—' : number(v)),
        })),
      ],
      scales: { x: { time: true, range: (u) => xRange(u.data[0]) } },
      // Labels at least 90 px apart, so they never run into one another.
      axes: [
        { space: 90, incrs: timeSteps, values: timeLabels },
        { size: 90, values: (_u, splits) => splits.map(number) },
      ],
    },
    data,
    container,
  );
  charts.set(key, { plot, shape });
}

function renderStrategy(strategy, detail) {
  const id = `strategy-${strategy.id}`;
  let section = document.getElementById(id);
  if (!section) {
    section = element('section', { id, class: 'strategy', 'data-strategy-section': strategy.id });
    section.append(
      element('h3'),
      element('p', { class: 'plan' }),
      element('dl', { class: 'figures' }),
      element('div', { class: 'charts' }),
      element('div', { class: 'trades' }),
    );
    document.getElementById('strategies').append(section);
  }
  const [title, plan, figures, chartBox, trades] = section.children;
  title.replaceChildren(`${strategy.id} `, element('small', {}, `${strategy.kind}, wallet ${strategy.wallet.name}, `), stateOf(strategy));
  plan.textContent = strategy.plan;
  const order = strategy.order ? orderFigures : [];
  figures.replaceChildren(...[...(figuresByKind[strategy.kind] ?? []), ...order, ...commonFigures].map(([label, path]) => figure(strategy, label, path)));
  for (const chart of chartsOf(strategy, detail.series)) {
    let box = chartBox.querySelector(`[data-chart="${chart.name}"]`);
    if (!box) {
      box = element('div', { class: 'chart' }, element('h4', {}, chart.title), element('div', { 'data-chart': chart.name }));
      chartBox.append(box);
      box = box.lastChild;
    }
    if (chart.points.length === 0) {
      box.dataset.points = '0';
      if (!charts.has(`${strategy.id}/${chart.name}`)) box.textContent = 'nothing yet';
      continue;
    }
    if (!charts.has(`${strategy.id}/${chart.name}`)) box.textContent = '';
    drawChart(box, `${strategy.id}/${chart.name}`, chart);
  }
  const rows = detail.trades.map((trade) =>
    element(
      'tr',
      {},
      element('td', {}, new Date(trade.at).toLocaleString()),
      element('td', {}, trade.status),
      element('td', {}, trade.text),
      element(
        'td',
        {},
        trade.link?.startsWith('https://')
          ? element('a', { href: trade.link, target: '_blank', rel: 'noopener noreferrer' }, `${trade.txHash.slice(0, 10)}…`)
          : trade.txHash
            ? element('code', {}, `${trade.txHash.slice(0, 10)}…`)
            : '',
      ),
    ),
  );
  trades.replaceChildren(
    element(
      'table',
      {},
      element(
        'thead',
        {},
        element('tr', {}, element('th', {}, 'when'), element('th', {}, 'status'), element('th', {}, 'trade'), element('th', {}, 'transaction')),
      ),
      element('tbody', {}, ...rows),
    ),
  );
}

async function refresh() {
  const problem = document.getElementById('problem');
  try {
    const report = await getJson('/api/status');
    const details = await Promise.all(report.strategies.map((strategy) => getJson(`/api/strategies/${encodeURIComponent(strategy.id)}`)));
    const pricesAt = report.pricesAt ? new Date(report.pricesAt).toLocaleString() : 'no prices recorded yet';
    document.getElementById('summary').textContent =
      `chain ${report.chainId ?? '?'} · ${report.strategies.length} strategies · values at the reference prices of ${pricesAt} · updated ${new Date(report.generatedAt).toLocaleTimeString()}`;
    renderOverview(report);
    report.strategies.forEach((strategy, i) => renderStrategy(strategy, details[i]));
    document.body.dataset.generatedAt = report.generatedAt;
    problem.hidden = true;
  } catch (error) {
    problem.hidden = false;
    problem.textContent = `cannot read the daemon: ${error.message}${/401/.test(error.message) ? ' (open the page as …/#token=<ROUTEKEEPER_STATUS_TOKEN>)' : ''}`;
  }
}

refresh();
setInterval(refresh, refreshMs);
