import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createPublicClient, http } from 'viem';
import { type AddressBook, loadAddressBook } from '../config/address-book.ts';
import { readEnv } from '../config/env.ts';
import { ConfigError } from '../errors.ts';
import { defaultDataDir } from '../engine/runtime.ts';
import { z } from 'zod';
import { redactUrl, registerSecret, registerSecretUrl } from '../ops/secrets.ts';
import { addressSchema } from '../primitives.ts';
import type { ApiKeyConfig } from '../routing/partners.ts';
import { defaultMinReserve, startRoutingService } from '../routing/server.ts';
import { routingSetupFor } from '../routing/setup.ts';
import { type CommandContext, hostOption, parseCommandArgs, parseIntegerOption } from './command.ts';
import { UsageError } from './errors.ts';

/** `routekeeper serve`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[], { shutdown }: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('serve', argv, {
    rpc: { type: 'string' },
    'address-book': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    cache: { type: 'string' },
    'no-cache': { type: 'boolean' },
    'min-reserve': { type: 'string' },
    'block-time': { type: 'string' },
    'api-keys': { type: 'string' },
    'search-budget': { type: 'string' },
    'per-client': { type: 'string' },
    'partner-store': { type: 'string' },
  });
  const blockTimeSeconds = parseIntegerOption('block-time', values['block-time'], { min: 0, max: 3600 });
  const searchBudgetMs = parseIntegerOption('search-budget', values['search-budget'], { min: 1, max: 60_000 });
  const perClientRate = parseIntegerOption('per-client', values['per-client'], { min: 0, max: 1_000_000 });
  const perClient = perClientRate === undefined ? undefined : perClientRate === 0 ? false : { requestsPerSecond: perClientRate, burst: 2 * perClientRate };
  const port = parseIntegerOption('port', values.port, { max: 65535 }) ?? 8080;
  const host = hostOption(values.host) ?? '127.0.0.1';
  const minReserve = values['min-reserve'] === undefined ? defaultMinReserve : minReserveOption(values['min-reserve']);
  const env = readEnv();
  const book: AddressBook | undefined = values['address-book'] ? loadAddressBook(values['address-book']) : undefined;
  const rpcUrl = values.rpc ?? env.RPC_URL?.[0] ?? book?.rpcUrl;
  if (!rpcUrl) throw new ConfigError('serve needs a node: set RPC_URL, or pass --rpc <url> or an --address-book with its rpcUrl');
  registerSecretUrl(rpcUrl);

  const chainId = await createPublicClient({ transport: http(rpcUrl) })
    .getChainId()
    .catch((error: unknown) => {
      throw new ConfigError(`the node ${redactUrl(rpcUrl)} did not answer eth_chainId: ${(error as Error).message.split('\n')[0]}`);
    });
  if (book && book.chainId !== chainId) throw new ConfigError(`--address-book is for chain ${book.chainId}, but the node is chain ${chainId}`);
  const dataDir = env.ROUTEKEEPER_DATA_DIR ?? defaultDataDir;
  const cacheFile = values['no-cache'] ? undefined : resolve(values.cache ?? join(dataDir, `routing-index-${chainId}.json`));
  if (cacheFile) mkdirSync(dirname(cacheFile), { recursive: true });
  const apiKeys = values['api-keys'] ? loadApiKeys(values['api-keys']) : [];
  if (apiKeys.length > 0 && !env.ROUTING_SIGNER_KEY)
    throw new ConfigError("--api-keys needs ROUTING_SIGNER_KEY: the key that signs partner ids (the router's admin signer)");
  const partnerStoreFile = resolve(values['partner-store'] ?? join(dataDir, `routing-partners-${chainId}.sqlite`));
  mkdirSync(dirname(partnerStoreFile), { recursive: true });

  const setup = routingSetupFor(chainId, rpcUrl, book);
  const headMaxAgeMs = blockTimeSeconds === undefined ? setup.headMaxAgeMs : blockTimeSeconds * 1000;
  const service = await startRoutingService({
    ...setup,
    headMaxAgeMs,
    minReserve,
    searchBudgetMs,
    cacheFile,
    host,
    port,
    apiKeys,
    partnerStoreFile,
    signerPrivateKey: env.ROUTING_SIGNER_KEY,
    allowedHosts: env.ROUTING_ALLOWED_HOSTS,
    perClient,
  });
  try {
    // It answers once its pools are indexed: the first request would otherwise wait for the whole index.
    const warm = await fetch(`${service.url}/tokens`, { signal: shutdown.signal });
    if (!warm.ok) throw new ConfigError(`the service could not index chain ${chainId}: ${((await warm.json()) as { error?: string }).error ?? warm.status}`);
    process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
    console.error(
      `routekeeper serve: routing on chain ${chainId} from ${redactUrl(rpcUrl)} at ${service.url}${cacheFile ? ` (index kept in ${cacheFile})` : ''}`,
    );
    await shutdown.requested;
  } finally {
    await service.close();
  }
  return 0;
}

const apiKeysSchema = z.array(
  z.object({
    key: z.string().min(16, { message: 'must be at least 16 characters' }),
    partner: z.number().int().positive(),
    feeRecipient: addressSchema.optional(),
    label: z.string().optional(),
  }),
);

/** `--api-keys FILE`: a JSON array of { key, partner, feeRecipient?, label? }; the error names the entry, never a key. */
function loadApiKeys(file: string): ApiKeyConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`--api-keys ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'not JSON')}`);
  }
  const parsed = apiKeysSchema.safeParse(raw);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new ConfigError(
      `--api-keys ${file}: ${issue?.path.join('.') || '(file)'} ${issue?.message ?? 'is invalid'} (expected [{ "key", "partner", "feeRecipient"?, "label"? }])`,
    );
  }
  for (const entry of parsed.data) registerSecret(entry.key);
  return parsed.data;
}

function minReserveOption(given: string): bigint {
  if (!/^\d+$/.test(given)) throw new UsageError(`--min-reserve must be a whole number of raw token units, got '${given}'`);
  return BigInt(given);
}
