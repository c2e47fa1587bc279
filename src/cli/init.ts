/**
 * `routekeeper init`: asks for the chain, its RPC URL, the wallet's key variable and a first strategy of each kind
 * wanted (or takes them as flags), and writes a strategy file and a `.env` that `routekeeper check` accepts.
 * Nothing is written until every answer is in and the strategy file passes the same schema `run` uses; an
 * existing file is kept unless --force.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { isHttpUrl } from '../config/env.ts';
import { type StrategyFile, decimalPattern, parseStrategyFile, parseDuration, strategyKinds } from '../config/strategy-file.ts';
import { type ChainProfile, type InitAnswers, type TokenAmount, chainProfiles, envFileText, strategyFileText } from '../init/plan.ts';
import { devnetKeyVariable } from '../devnet/world-spec.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { encryptKeystore } from '../config/keystore.ts';
import { schemaPath } from './schema-path.ts';

type Kind = (typeof strategyKinds)[number];

const options = {
  chain: { type: 'string' },
  'rpc-url': { type: 'string' },
  'key-env': { type: 'string' },
  strategies: { type: 'string' },
  'take-profit': { type: 'string' },
  config: { type: 'string', short: 'c' },
  dotenv: { type: 'string' },
  force: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  keystore: { type: 'string' },
  'password-file': { type: 'string' },
} as const;

type Flags = ReturnType<typeof parseCommandArgs<typeof options>>['values'];

/** Asks one question; `undefined` answers take the default. The prompts or, with --yes, the defaults alone. */
type Asker = {
  select<T extends string>(message: string, choices: { value: T; name: string }[], fallback: T): Promise<T>;
  text(message: string, fallback: string | undefined, check: (value: string) => string | undefined): Promise<string>;
  optionalText(message: string, check: (value: string) => string | undefined): Promise<string | undefined>;
  secret(message: string, check: (value: string) => string | undefined): Promise<string | undefined>;
  kinds(message: string, offered: Kind[], fallback: Kind[]): Promise<Kind[]>;
};

function tokenAmountProblem(chain: ChainProfile) {
  return (value: string) => {
    const match = /^(\S+)\s+(\S+)$/.exec(value.trim());
    if (!match || !decimalPattern.test(match[1] as string) || Number(match[1]) <= 0) return 'an amount and a token, such as 10 cUSD';
    return chain.tokens.includes(match[2] as string) ? undefined : `a token of this chain: ${chain.tokens.join(', ')}`;
  };
}

const toTokenAmount = (value: string): TokenAmount => {
  const [amount, token] = value.trim().split(/\s+/) as [string, string];
  return { amount, token };
};

const tokenProblem = (chain: ChainProfile) => (value: string) =>
  chain.tokens.includes(value.trim()) ? undefined : `a token of this chain: ${chain.tokens.join(', ')}`;
const priceProblem = (value: string) => (decimalPattern.test(value.trim()) && Number(value) > 0 ? undefined : 'a price above 0, such as 0.6');
const everyProblem = (value: string) => {
  try {
    return parseDuration(value.trim()) >= 60_000 ? undefined : 'at least a minute, such as 1h or 1d';
  } catch {
    return 'a duration such as 30m, 1h or 1d';
  }
};

/** Answers from flags alone: a question without a flag takes its default, and one without a default is a UsageError. */
function defaultsAsker(): Asker {
  const need = (message: string): never => {
    throw new UsageError(`init: ${message}: give it as a flag (see 'routekeeper init --help'), or run init in a terminal to be asked`);
  };
  return {
    select: async (_message, _choices, fallback) => fallback,
    text: async (message, fallback) => fallback ?? need(message),
    optionalText: async () => undefined,
    secret: async () => undefined,
    kinds: async (_message, _offered, fallback) => fallback,
  };
}

/** Answers from a person at a terminal (@inquirer/prompts), loaded only here. */
async function promptAsker(): Promise<Asker> {
  const { checkbox, input, password, select } = await import('@inquirer/prompts');
  const validate = (check: (value: string) => string | undefined) => (value: string) => check(value) ?? true;
  return {
    select: (message, choices, fallback) => select({ message, choices, default: fallback }),
    text: async (message, fallback, check) => (await input({ message, default: fallback, validate: validate(check) })).trim(),
    optionalText: async (message, check) => {
      const value = (await input({ message: `${message} (Enter for none)`, validate: (v) => v.trim() === '' || validate(check)(v) })).trim();
      return value === '' ? undefined : value;
    },
    secret: async (message, check) => {
      const value = (
        await password({ message: `${message} (hidden; Enter to fill it in later)`, mask: true, validate: (v) => v === '' || validate(check)(v) })
      ).trim();
      return value === '' ? undefined : value;
    },
    kinds: (message, offered, fallback) =>
      checkbox({ message, choices: offered.map((kind) => ({ value: kind, name: kind, checked: fallback.includes(kind) })), required: true }),
  };
}

/** --strategies dca,limit: the kinds named, each known and offered on this chain. */
function kindsFlag(value: string | undefined, offered: Kind[]): Kind[] | undefined {
  if (value === undefined) return undefined;
  const kinds = value
    .split(',')
    .map((kind) => kind.trim())
    .filter(Boolean);
  for (const kind of kinds) {
    if (!offered.includes(kind as Kind)) throw new UsageError(`init: --strategies: '${kind}' is not one of ${offered.join(', ')}`);
  }
  if (kinds.length === 0) throw new UsageError(`init: --strategies: name at least one of ${offered.join(', ')}`);
  return kinds as Kind[];
}

function flagChecked(name: string, value: string | undefined, problem: (value: string) => string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const wrong = problem(value);
  if (wrong) throw new UsageError(`init: --${name} must be ${wrong}, got '${value}'`);
  return value.trim();
}

async function answer(flags: Flags, ask: Asker, configFile: string): Promise<{ answers: InitAnswers; key?: string }> {
  const chainName =
    (flagChecked('chain', flags.chain, (v) => (v === 'celo' || v === 'devnet' ? undefined : 'celo or devnet')) as ChainProfile['name'] | undefined) ??
    (await ask.select(
      'Which chain?',
      Object.values(chainProfiles).map((chain) => ({ value: chain.name, name: `${chain.name}: ${chain.title}` })),
      'devnet',
    ));
  const chain = chainProfiles[chainName];
  const urlProblem = (v: string) => (v.split(',').every((url) => isHttpUrl(url.trim())) ? undefined : 'an http(s) URL (or several, separated by commas)');
  const rpcUrl = chain.needsRpcUrl
    ? (flagChecked('rpc-url', flags['rpc-url'], urlProblem) ?? (await ask.text("The chain's RPC URL (your node or provider)", undefined, urlProblem)))
    : undefined;
  if (!chain.needsRpcUrl && flags['rpc-url'] !== undefined) throw new UsageError('init: --rpc-url is for a real chain; the devnet starts its own node');
  const envNameProblem = (v: string) => (/^[A-Z_][A-Z0-9_]*$/.test(v) ? undefined : 'an environment variable name, such as ROUTEKEEPER_PRIVATE_KEY');
  let keyEnv = devnetKeyVariable;
  let key: string | undefined;
  if (chain.needsRpcUrl) {
    keyEnv =
      flagChecked('key-env', flags['key-env'], envNameProblem) ??
      (await ask.text("The environment variable that holds the wallet's private key", devnetKeyVariable, envNameProblem));
    if (!process.env[keyEnv])
      key = await ask.secret(`The private key for ${keyEnv}, written to the .env file only`, (v) =>
        /^0x[0-9a-fA-F]{64}$/.test(v) ? undefined : '0x and 64 hex digits',
      );
  } else if (flags['key-env'] !== undefined && flags['key-env'] !== devnetKeyVariable) {
    throw new UsageError(`init: --key-env: the devnet funds ${devnetKeyVariable} only`);
  }
  // A V3 position is named by its NFT's id, which a first file cannot know: it is added to the file by hand.
  const offered = strategyKinds.filter((kind) => kind !== 'uniswap-v3-position' && (kind !== 'compound' || chain.gauges.length > 0));
  const kinds =
    kindsFlag(flags.strategies, offered) ?? (await ask.kinds('Which strategies to start with? (space to choose, Enter to go on)', offered, ['dca']));
  const answers: InitAnswers = { chain, rpcUrl, keyEnv, configFile };
  if (kinds.includes('dca')) {
    const sell = toTokenAmount(await ask.text('DCA: spend how much at each buy?', `10 ${chain.stable}`, tokenAmountProblem(chain)));
    const buy = await ask.text('DCA: buy which token?', chain.volatile, tokenProblem(chain));
    answers.dca = { sell, buy, every: await ask.text('DCA: how often?', '1d', everyProblem) };
  }
  if (kinds.includes('limit')) {
    const sell = toTokenAmount(await ask.text('Limit order: sell how much?', `10 ${chain.volatile}`, tokenAmountProblem(chain)));
    const buy = await ask.text('Limit order: for which token?', chain.stable, tokenProblem(chain));
    const takeProfit =
      flagChecked('take-profit', flags['take-profit'], priceProblem) ??
      (await ask.text(`Limit order: sell once one ${sell.token} fetches how much ${buy} or more (take-profit)?`, undefined, priceProblem));
    const stopLoss = await ask.optionalText(`Limit order: or sell once it fetches this much ${buy} or less (stop-loss)?`, priceProblem);
    answers.limit = { sell, buy, takeProfit, stopLoss };
  }
  if (kinds.includes('rebalance')) {
    const listProblem = (v: string) => {
      const tokens = v.split(',').map((t) => t.trim());
      return tokens.length >= 2 && tokens.every((t) => chain.tokens.includes(t)) && new Set(tokens).size === tokens.length
        ? undefined
        : `two or more tokens of this chain, separated by commas: ${chain.tokens.join(', ')}`;
    };
    const tokens = (await ask.text('Rebalance: keep which tokens at equal value?', `${chain.volatile}, ${chain.stable}`, listProblem))
      .split(',')
      .map((t) => t.trim());
    answers.rebalance = { tokens, every: await ask.text('Rebalance: look how often?', '1h', everyProblem) };
  }
  if (kinds.includes('compound')) {
    answers.compound = {
      gauge: await ask.select(
        'Compound: which gauge?',
        chain.gauges.map((gauge) => ({ value: gauge, name: gauge })),
        chain.gauges[0] as string,
      ),
    };
  }
  return { answers, key };
}

/**
 * --keystore FILE: the wallet's key (asked, or from its variable) encrypted into a Web3 Secret Storage keystore with
 * the password of --password-file (which the strategy file then names) or, at a terminal, one asked twice.
 */
async function keystoreOf(flags: Flags, answers: InitAnswers, key: string | undefined, interactive: boolean, configFile: string) {
  if (!answers.chain.needsRpcUrl) throw new UsageError('init: --keystore is for a real chain; the devnet funds a test key of its own');
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new UsageError(`init: --keystore needs the key: answer it at the prompt, or set ${answers.keyEnv} (0x and 64 hex digits)`);
  const file = resolve(flags.keystore as string);
  if (existsSync(file) && !flags.force) throw new UsageError(`init: ${file} exists: pass --force to replace it, or --keystore to write elsewhere`);
  let password: string;
  const passwordFile = flags['password-file'];
  if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new UsageError(`init: --password-file ${passwordFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  } else if (interactive) {
    const { password: ask } = await import('@inquirer/prompts');
    password = await ask({ message: 'A password for the keystore', mask: false });
    if ((await ask({ message: 'The same password again', mask: false })) !== password)
      throw new UsageError('init: the two passwords differ; nothing was written');
  } else {
    throw new UsageError('init: --keystore without a terminal needs --password-file');
  }
  if (password.length < 8) throw new UsageError('init: the keystore password must be 8 characters or more');
  const base = dirname(configFile);
  return {
    file,
    text: encryptKeystore(key as `0x${string}`, password),
    named: { file: relative(base, file) || file, ...(passwordFile !== undefined && { passwordFile: relative(base, resolve(passwordFile)) }) },
  };
}

/** Writes `text` to `file` whole or not at all (a temporary file renamed over it). */
function writeWhole(file: string, text: string, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, file);
}

/** `routekeeper init`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values: flags } = parseCommandArgs('init', argv, options);
  const configFile = resolve(flags.config ?? 'strategies.yaml');
  const envFile = resolve(flags.dotenv ?? '.env');
  for (const file of [configFile, envFile]) {
    if (existsSync(file) && !flags.force) throw new UsageError(`init: ${file} exists: pass --force to replace it, or --config / --dotenv to write elsewhere`);
  }
  const interactive = !flags.yes && process.stdin.isTTY === true;
  let answered: Awaited<ReturnType<typeof answer>>;
  try {
    // The .env names the strategy file as given, so `routekeeper check` finds it from the .env's directory.
    answered = await answer(flags, interactive ? await promptAsker() : defaultsAsker(), relative(dirname(envFile), configFile) || configFile);
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') {
      console.error('routekeeper: init: stopped; nothing was written');
      return 130;
    }
    throw error;
  }
  const { answers } = answered;
  let { key } = answered;
  // With --keystore the key goes into an encrypted keystore beside the strategy file, never into the .env.
  const keystore = flags.keystore === undefined ? undefined : await keystoreOf(flags, answers, key ?? process.env[answers.keyEnv], interactive, configFile);
  if (keystore) {
    answers.keystore = keystore.named;
    key = undefined;
  }
  const schema = relative(dirname(configFile), fileURLToPath(new URL(`../../${schemaPath}`, import.meta.url)));
  const text = strategyFileText(answers, schema);
  // What init writes, `run` must accept: the same schema, before anything is written.
  const checked: StrategyFile = parseStrategyFile(parseYaml(text), configFile);
  if (keystore) writeWhole(keystore.file, keystore.text, 0o600);
  writeWhole(configFile, text, 0o644);
  writeWhole(envFile, envFileText(answers, { given: key, inEnvironment: Boolean(process.env[answers.keyEnv]) }), 0o600);
  const ids = checked.strategies.map((strategy) => strategy.id);
  console.log(`Wrote ${configFile} (${ids.length} ${ids.length === 1 ? 'strategy' : 'strategies'}: ${ids.join(', ')}) and ${envFile} (mode 600).`);
  console.log('Next:');
  if (keystore)
    console.log(
      `Wrote the wallet's key to the encrypted keystore ${keystore.file} (mode 600)${answers.keystore?.passwordFile ? `, unlocked by ${answers.keystore.passwordFile}` : '; its password is asked at each start'}.`,
    );
  else if (answers.chain.needsRpcUrl && key === undefined && !process.env[answers.keyEnv])
    console.log(`  put the wallet's private key in ${envFile} (${answers.keyEnv}=0x…)`);
  console.log('  routekeeper check          the plan in words, balances and allowances; signs nothing');
  if (answers.chain.needsRpcUrl) console.log('  routekeeper run --fork     paper trading on a local fork of the chain; nothing reaches it');
  console.log(`  routekeeper run            ${answers.chain.needsRpcUrl ? 'trade for real' : 'trade on the embedded devnet'}`);
  return 0;
}
