/**
 * What `routekeeper init` writes, from the answers: a strategy file (one first strategy of each kind asked for,
 * with safe defaults) and a `.env` beside it. Pure: the command asks and writes, this decides the text.
 * The strategy file names the key's variable, never the key.
 */
import { formatUnits, parseUnits } from 'viem';
import { tokenDirectory } from '../config/chain-data.ts';
import { devnetKeyVariable, gaugeSpec, tokenSpecs } from '../devnet/world-spec.ts';

/** A chain init can write for: its tokens, the tokens a first strategy uses, its gauges, whether it needs RPC_URL. */
export type ChainProfile = {
  name: 'celo' | 'devnet';
  title: string;
  tokens: readonly string[];
  /** The stable token amounts are priced and budgeted in, and the volatile one the examples buy and sell. */
  stable: string;
  volatile: string;
  gauges: readonly string[];
  needsRpcUrl: boolean;
};

const celo = tokenDirectory(42220);

export const chainProfiles: Record<ChainProfile['name'], ChainProfile> = {
  celo: {
    name: 'celo',
    title: 'Celo mainnet (chain 42220): real funds',
    tokens: Object.keys(celo.tokens),
    stable: 'USDm',
    volatile: 'CELO',
    // No gauge on Celo is known to routekeeper yet (config/chains/42220.json): compound is not offered there.
    gauges: [],
    needsRpcUrl: true,
  },
  devnet: {
    name: 'devnet',
    title: 'the embedded devnet: a local chain with test tokens, nothing real',
    tokens: tokenSpecs.map((token) => token.symbol),
    stable: 'cUSD',
    volatile: 'CELO',
    gauges: [gaugeSpec.pool],
    needsRpcUrl: false,
  },
};

/** "10 cUSD": an amount and a token symbol. */
export type TokenAmount = { amount: string; token: string };

export type InitAnswers = {
  chain: ChainProfile;
  /** Absent on the devnet. */
  rpcUrl?: string;
  keyEnv: string;
  configFile: string;
  dca?: { sell: TokenAmount; buy: string; every: string };
  limit?: { sell: TokenAmount; buy: string; takeProfit: string; stopLoss?: string };
  rebalance?: { tokens: string[]; every: string };
  compound?: { gauge: string };
  /** The wallet's key in an encrypted keystore (paths relative to the strategy file) instead of the .env. */
  keystore?: { file: string; passwordFile?: string };
};

/** A budget that bounds a mistake: a DCA spends at most one buy's amount a day and 30 days' worth in all. */
function dcaBudget(amount: string): { perDay: string; total: string } {
  // Decimal strings, exactly: 18 places hold any amount a person types here.
  return { perDay: amount, total: formatUnits(parseUnits(amount, 18) * 30n, 18) };
}

const quoted = (text: string) => JSON.stringify(text);

function dcaYaml(dca: NonNullable<InitAnswers['dca']>): string {
  const budget = dcaBudget(dca.sell.amount);
  return `  # Buy ${dca.buy} with ${dca.sell.amount} ${dca.sell.token} every ${dca.every}; at most ${budget.perDay} ${dca.sell.token} a day, ${budget.total} in all.
  - id: dca-${dca.sell.token.toLowerCase()}-${dca.buy.toLowerCase()}
    kind: dca
    wallet: main
    every: ${dca.every}
    sell: { token: ${dca.sell.token}, amount: ${quoted(dca.sell.amount)} }
    buy: ${dca.buy}
    budget: { perDay: ${quoted(budget.perDay)}, total: ${quoted(budget.total)} }
`;
}

function limitYaml(limit: NonNullable<InitAnswers['limit']>): string {
  const stop = limit.stopLoss === undefined ? '' : `, or ${limit.stopLoss} or less (stop-loss)`;
  return `  # Sell ${limit.sell.amount} ${limit.sell.token} for ${limit.buy} once one ${limit.sell.token} fetches ${limit.takeProfit} ${limit.buy} or more (take-profit)${stop}. Once.
  - id: limit-${limit.sell.token.toLowerCase()}-${limit.buy.toLowerCase()}
    kind: limit
    wallet: main
    every: 1m
    sell: { token: ${limit.sell.token}, amount: ${quoted(limit.sell.amount)} }
    buy: ${limit.buy}
    takeProfit: ${quoted(limit.takeProfit)}
${limit.stopLoss === undefined ? '' : `    stopLoss: ${quoted(limit.stopLoss)}\n`}`;
}

function rebalanceYaml(rebalance: NonNullable<InitAnswers['rebalance']>, stable: string): string {
  return `  # Keep ${rebalance.tokens.join(', ')} at equal value (priced in ${stable}); act when one is 5% off, in trades of 10 ${stable} or more.
  - id: rebalance-${rebalance.tokens.map((token) => token.toLowerCase()).join('-')}
    kind: rebalance
    wallet: main
    every: ${rebalance.every}
    targets: { ${rebalance.tokens.map((token) => `${token}: 1`).join(', ')} }
    quoteToken: ${stable}
    driftBps: 500
    minTrade: "10"
`;
}

function compoundYaml(compound: NonNullable<InitAnswers['compound']>, stable: string): string {
  return `  # Claim the ${compound.gauge} gauge's rewards when worth 0.01 ${stable} more than the gas, and deposit them back.
  - id: compound-${compound.gauge.toLowerCase().replace(/[^a-z0-9]+/g, '-')}
    kind: compound
    wallet: main
    every: 1h
    gauge: ${compound.gauge}
    valueToken: ${stable}
    minRewardValue: "0.01"
`;
}

/** The strategy file's text. `schemaRef` points editors at the JSON Schema, relative to the file. */
export function strategyFileText(answers: InitAnswers, schemaRef: string): string {
  const { chain } = answers;
  const strategies = [
    answers.dca && dcaYaml(answers.dca),
    answers.limit && limitYaml(answers.limit),
    answers.rebalance && rebalanceYaml(answers.rebalance, chain.stable),
    answers.compound && compoundYaml(answers.compound, chain.stable),
  ].filter((text): text is string => text !== undefined);
  return `# yaml-language-server: $schema=${schemaRef}
# Written by \`routekeeper init\` for ${chain.title}.
# Check it with \`routekeeper check\`;${chain.needsRpcUrl ? ' paper-trade it with `routekeeper run --fork`;' : ''} run it with \`routekeeper run\`.
# Every field is described in the JSON Schema above and in docs/strategy-file.md.
defaults:
  slippageBps: 50              # accept at most 0.5% less than quoted
  maxPriceDeviationBps: 100    # refuse a quote 1% below the independent price reference
  approvals: exact             # approve each trade's amount, never an unlimited allowance
  maxFeePerGasGwei: "50"       # never sign a higher max fee per gas
${chain.needsRpcUrl ? '  firstRun: slot               # a new strategy waits for its first slot instead of trading at start\n' : ''}
wallets:
${walletYaml(answers)}

strategies:
${strategies.join('\n')}`;
}

/** The wallet: its keystore (and password file), or the variable holding its key. */
function walletYaml(answers: InitAnswers): string {
  const { keystore } = answers;
  if (!keystore) return `  main: { privateKeyEnv: ${answers.keyEnv} }   # the variable holding the key (in .env), never the key`;
  const password = keystore.passwordFile ? `, passwordFile: ${JSON.stringify(keystore.passwordFile)}` : '';
  return `  main: { keystore: ${JSON.stringify(keystore.file)}${password} }   # the key, encrypted${password ? '' : '; its password is asked at start'}`;
}

/** The `.env` text: where the chain and the strategy file are, and the key's variable (filled in by the user). */
export function envFileText(answers: InitAnswers, key: { given?: string; inEnvironment: boolean }): string {
  const lines = [
    `# Written by \`routekeeper init\`. routekeeper reads it from the working directory; keep it to yourself (mode 600).`,
    `ROUTEKEEPER_CONFIG=${answers.configFile}`,
  ];
  if (answers.rpcUrl) lines.push('# The chain to trade on (several URLs separated by commas fail over to one another).', `RPC_URL=${answers.rpcUrl}`);
  if (answers.keystore) {
    lines.push(`# The wallet's key is in the encrypted keystore ${answers.keystore.file}, not here.`);
  } else if (answers.chain.needsRpcUrl) {
    lines.push(
      key.given !== undefined
        ? `# The wallet's private key. Anyone who reads this file can spend the wallet: keep it to yourself.`
        : key.inEnvironment
          ? `# ${answers.keyEnv} is set in your environment, and routekeeper uses that; a value here is used only where it is not.`
          : `# The wallet's private key (0x and 64 hex digits). Put it here, or set it in the environment instead.`,
      `${answers.keyEnv}=${key.given ?? ''}`,
    );
  } else {
    lines.push(`# On the embedded devnet, ${devnetKeyVariable} left empty means a funded test account.`, `${devnetKeyVariable}=`);
  }
  return `${lines.join('\n')}\n`;
}
